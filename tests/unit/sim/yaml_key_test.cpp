// A mapping key that is not a name (a list, a mapping, nothing) is an input error with its position, in a file
// and in a --set value (found by fuzzing: such keys threw yaml-cpp's bad-conversion out of every loader).
#include <gtest/gtest.h>

#include <string>

#include "sim/core/config_reader.hpp"

namespace stasim {
namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_yaml_text(text, "f.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(YamlKeys, KeysThatAreNotNamesAreInputErrors) {
  EXPECT_NE(parse_error("{[a]: 1}\n").find("f.yaml:1:2: (top level): a key must be a plain name, got a list"), std::string::npos);
  EXPECT_NE(parse_error("a:\n  b:\n    ? {c: d}\n    : 1\n").find("f.yaml:3:7: a.b: a key must be a plain name, got a mapping"),
            std::string::npos);
  EXPECT_NE(parse_error("? \n: 1\n").find("f.yaml:2:1: (top level): a key must be a plain name"), std::string::npos);
  EXPECT_EQ(parse_error("a: {b: [1, {c: 2}]}\n"), "");
}

TEST(YamlKeys, OverrideValueWithAListKeyIsAnInputError) {
  YamlNode root = parse_yaml_text("core: {dma: 1}\n", "hw.yaml");
  try {
    apply_overrides(root, {"core.dma={[a]: 1}"}, "hw.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hw.yaml (from --set): core.dma: a key must be a plain name, got a list"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace stasim
