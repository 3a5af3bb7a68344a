// Replays every input in tests/fuzz/regressions/<harness>/ through its harness in the normal build, so what
// fuzzing once found stays covered by ctest. A harness throws only what is not an InputError, so a replayed
// input fails here exactly when its finding is back (a crash fails the whole binary).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_harness.hpp"
#include "tests/fuzz/yaml_mutators.hpp"

namespace stasim::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> regression_inputs(const std::string& harness) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(STASIM_SOURCE_DIR) / "tests/fuzz/regressions" / harness;
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void replay(const std::string& harness, void (*run)(const std::string&)) {
  const std::vector<fs::path> files = regression_inputs(harness);
  ASSERT_FALSE(files.empty()) << "no regression inputs in tests/fuzz/regressions/" << harness;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    EXPECT_NO_THROW(run(contents(file)));
  }
}

TEST(FuzzRegression, HardwareConfig) { replay("hardware_config", hardware_config); }
TEST(FuzzRegression, ModelConfig) { replay("model_config", model_config); }
TEST(FuzzRegression, Schedule) { replay("schedule", schedule); }
TEST(FuzzRegression, Routes) { replay("routes", routes); }
TEST(FuzzRegression, SetOverride) { replay("set_override", set_override); }

// The structure-aware mutations the fuzzers apply (yaml_mutators.hpp), replayed over the shipped files with
// fixed seeds: every alias-expanded or emptied variant is either valid or an InputError, never anything else.
std::vector<fs::path> shipped(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(STASIM_SOURCE_DIR) / "configs" / folder))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

void mutate_and_run(const std::string& folder, void (*run)(const std::string&)) {
  for (const fs::path& file : shipped(folder)) {
    const std::string text = contents(file);
    for (std::uint32_t seed = 0; seed < 40; ++seed) {
      SCOPED_TRACE(file.string() + " seed " + std::to_string(seed));
      EXPECT_NO_THROW(run(mutate_aliases(text, seed)));
      EXPECT_NO_THROW(run(mutate_null_section(text, seed)));
      EXPECT_NO_THROW(run(mutate_bad_bytes(text, seed)));
    }
  }
}

TEST(FuzzMutators, HardwareConfig) { mutate_and_run("hw", hardware_config); }
TEST(FuzzMutators, ModelConfig) { mutate_and_run("models", model_config); }
TEST(FuzzMutators, Schedule) { mutate_and_run("schedules", schedule); }
TEST(FuzzMutators, SetOverride) {
  for (std::uint32_t seed = 0; seed < 200; ++seed)
    EXPECT_NO_THROW(set_override(mutate_set_line("core.dma.issue_ns=900\nmoe.top_k=4\n", seed))) << seed;
  for (std::uint32_t seed = 0; seed < 200; ++seed)
    EXPECT_NO_THROW(set_override(mutate_bad_bytes("core.dma.issue_ns=900\nname=trn3\n", seed))) << seed;
}

TEST(FuzzMutators, ProduceTheIntendedShapes) {
  const std::string text = "core:\n  dma:\n    issue_ns: 900\n    engines: 16\nname: x\n";
  // Seed 0..: at least one bomb (nested anchors) and one emptied section among a few seeds.
  bool bomb = false, emptied = false;
  for (std::uint32_t seed = 0; seed < 20; ++seed) {
    bomb |= mutate_aliases(text, seed).find("&zz_b1 [*zz_b0") != std::string::npos;
    std::string n = mutate_null_section(text, seed);
    emptied |= n.find("  dma:\nname: x") != std::string::npos || n.find("core:\nname: x") != std::string::npos;
  }
  EXPECT_TRUE(bomb);
  EXPECT_TRUE(emptied);
  EXPECT_EQ(mutate_set_line("core.dma.issue_ns=900\n", 1).find("core"), 0u);
}

TEST(FuzzMutators, BadBytesLandInAKeyOrValue) {
  // Over 40 seeds the mutator writes at least one raw invalid UTF-8 byte (0xc0 0xed 0xf4 0x80 0xff are never
  // valid where it puts them), one raw C0 control character and one double-quoted escape, and never returns the
  // text unchanged.
  const std::string text = "name: trn3\ncore:\n  dma:\n    issue_ns: 900\n";
  bool invalid = false, control = false, escape = false;
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const std::string m = mutate_bad_bytes(text, seed);
    EXPECT_NE(m, text) << seed;
    for (char c : m) {
      const unsigned char u = static_cast<unsigned char>(c);
      invalid |= u == 0xff || u == 0xc0 || u == 0xed || u == 0xf4 || u == 0x80;
      control |= u < 0x20 && c != '\n';
    }
    escape |= m.find("\"zz\\") != std::string::npos;
  }
  EXPECT_TRUE(invalid);
  EXPECT_TRUE(control);
  EXPECT_TRUE(escape);
}

}  // namespace
}  // namespace stasim::fuzz
