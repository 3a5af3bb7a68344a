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

}  // namespace
}  // namespace stasim::fuzz
