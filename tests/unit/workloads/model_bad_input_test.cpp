// Bad model files: every problem names file:line:column and the key path, unknown keys get a did-you-mean, and
// load_model throws InputError listing them all.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/input_error.hpp"
#include "workloads/model_spec.hpp"

namespace stasim {
namespace {

std::string shipped_text() {
  std::ifstream in(std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to a fresh file under the temp dir and returns its path.
std::string write_temp(const std::string& text, const std::string& tag) {
  std::string path = testing::TempDir() + "stasim_model_" + tag + ".yaml";
  std::ofstream(path) << text;
  return path;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The InputError message of loading `path` with `overrides`, or "" when it loads.
std::string load_error(const std::string& path, const std::vector<std::string>& overrides = {}) {
  try {
    load_model(path, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST(ModelBadInput, UnknownKeyWithDidYouMean) {
  const std::string text = replaced(shipped_text(), "  top_k: 8", "  topk: 8");
  const std::string path = write_temp(text, "unknown");
  const std::string message = load_error(path);
  const std::string where = path + ":" + std::to_string(line_of(text, "  topk:")) + ":3";
  EXPECT_TRUE(has(message, where + ": moe.topk: unknown key (did you mean 'moe.top_k'?)")) << message;
  // The required key it replaced is missing too, and both are reported at once.
  EXPECT_TRUE(has(message, "missing required key 'moe.top_k'")) << message;
}

TEST(ModelBadInput, WrongType) {
  const std::string text = replaced(shipped_text(), "hidden: 2048", "hidden: wide");
  const std::string path = write_temp(text, "type");
  const std::string message = load_error(path);
  EXPECT_TRUE(has(message, path + ":" + std::to_string(line_of(text, "hidden:")) + ":1: hidden: expected an integer, got 'wide'"))
      << message;
}

TEST(ModelBadInput, UnknownEnumName) {
  const std::string path = write_temp(replaced(shipped_text(), "activation: swiglu", "activation: swiglo"), "enum");
  const std::string message = load_error(path);
  EXPECT_TRUE(has(message, "moe.activation: 'swiglo' is not one of swiglu, geglu, relu2 (did you mean 'swiglu'?)"))
      << message;
}

TEST(ModelBadInput, TpNotDividingIIsNamedAtTheDeploymentKey) {
  const std::string text = shipped_text();
  const std::string path = write_temp(text, "tp");
  const std::string message = load_error(path, {"deployment.tp=5"});
  // The value came from --set, not from the file's line (which still says tp: 4), as for type errors.
  EXPECT_TRUE(has(message, path + " (from --set): deployment.tp: tp = 5 does not divide moe.intermediate (I) = 768"))
      << message;
  const std::string in_file = write_temp(replaced(text, "  tp: 4", "  tp: 3"), "tp3");
  const std::string message3 = load_error(in_file);
  EXPECT_TRUE(has(message3, in_file + ":" + std::to_string(line_of(text, "  tp: 4")) + ":3: deployment.tp: tp = 3"))
      << message3;
}

TEST(ModelBadInput, OverrideTypoGetsDidYouMean) {
  const std::string message = load_error(write_temp(shipped_text(), "set"), {"moe.top_kk=4"});
  EXPECT_TRUE(has(message, "did you mean 'moe.top_k'")) << message;
}

TEST(ModelBadInput, OverrideValueIsValidated) {
  const std::string path = write_temp(shipped_text(), "set2");
  EXPECT_EQ(load_model(path, {"moe.top_k=4"}).top_k, 4);
  const std::string message = load_error(path, {"moe.top_k=200"});
  EXPECT_TRUE(has(message, "moe.top_k: must be between 1 and moe.experts = 128, got 200")) << message;
}

TEST(ModelBadInput, CrossFieldProblemsAllAtOnce) {
  std::string text = shipped_text();
  text = replaced(text, "layers: []", "layers: [48]");
  text = replaced(text, "kv_heads: 4", "kv_heads: 5");
  text = replaced(text, "activation: swiglu", "activation: relu2");
  const std::string path = write_temp(text, "cross");
  try {
    load_model(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_TRUE(has(message, "dense.layers: layer 48 is outside 0..47")) << message;
    EXPECT_TRUE(has(message, "dense.intermediate: must be positive when dense.layers is not empty")) << message;
    EXPECT_TRUE(has(message, "attention.kv_heads: must divide attention.q_heads = 32")) << message;
    EXPECT_TRUE(has(message, "moe.gated: must be false for activation relu2")) << message;
    EXPECT_GE(e.problems().size(), 4u);
  }
}

TEST(ModelBadInput, LayerPatternLength) {
  const std::string path = write_temp(shipped_text() + "layer_pattern: \"EEM\"\n", "pattern");
  const std::string message = load_error(path);
  EXPECT_TRUE(has(message, "layer_pattern: has 3 characters but layers = 48")) << message;
}

TEST(ModelBadInput, MissingFile) {
  EXPECT_THROW(load_model("/nonexistent/model.yaml"), InputError);
}

}  // namespace
}  // namespace stasim
