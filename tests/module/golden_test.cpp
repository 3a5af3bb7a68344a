// The regression of schedule timing: every case of sim/studies/golden_suite.hpp re-simulated and compared exactly
// with its file in tests/golden/. A failure lists every value that moved; regenerate on purpose with
// tools/update-goldens.
#include <gtest/gtest.h>

#include <filesystem>
#include <cctype>
#include <fstream>
#include <set>

#include "sim/studies/golden_suite.hpp"

namespace stasim {

// gtest prints a case by its name (not its bytes) in test listings.
void PrintTo(const GoldenCase& c, std::ostream* out) { *out << c.name; }

namespace {

std::string golden_dir() { return std::string(STASIM_SOURCE_DIR) + "/tests/golden"; }

class GoldenTest : public testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesExactly) {
  const GoldenCase& c = GetParam();
  std::string file = golden_dir() + "/" + c.name + ".json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << "no golden " << file << "; run tools/update-goldens to create it";
  nlohmann::json golden = nlohmann::json::parse(in);
  DataflowRegistry registry;
  register_builtin(registry);
  nlohmann::json now = golden_summary(c, STASIM_SOURCE_DIR, registry);
  std::vector<std::string> diff = golden_diff(golden, now);
  std::string message;
  for (const std::string& d : diff) message += "  " + d + "\n";
  EXPECT_TRUE(diff.empty()) << c.name << " moved (regenerate with tools/update-goldens if intended):\n" << message;
}

std::string case_name(const testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Goldens, GoldenTest, testing::ValuesIn(golden_cases(STASIM_SOURCE_DIR)), case_name);

// Every golden file belongs to a case, so a removed model or schedule cannot leave a stale golden behind.
TEST(GoldenFiles, EachFileHasACase) {
  std::set<std::string> names;
  for (const GoldenCase& c : golden_cases(STASIM_SOURCE_DIR)) names.insert(c.name + ".json");
  for (const auto& entry : std::filesystem::directory_iterator(golden_dir()))
    EXPECT_TRUE(names.count(entry.path().filename().string())) << entry.path() << " has no case";
  // 8 shipped models x {dense, cardan} + the 4 hand schedules of configs/schedules/.
  EXPECT_EQ(names.size(), 8u * 2 + 4);
}

TEST(GoldenDiff, NamesEveryMovedLeaf) {
  nlohmann::json golden = {{"total_ps", 1000}, {"critical_path", {{"by_engine_ps", {{"tensor", 400}, {"dma", 600}}}}}};
  nlohmann::json now = golden;
  EXPECT_TRUE(golden_diff(golden, now).empty());
  now["total_ps"] = 1100;
  now["critical_path"]["by_engine_ps"]["dma"] = 700;
  now["ops"] = 3;
  std::vector<std::string> diff = golden_diff(golden, now);
  ASSERT_EQ(diff.size(), 3u);
  EXPECT_EQ(diff[0], "critical_path.by_engine_ps.dma: golden 600, now 700");
  EXPECT_EQ(diff[1], "total_ps: golden 1000, now 1100");
  EXPECT_EQ(diff[2], "ops: not in the golden, now 3");
}

TEST(GoldenDiff, MovedRowShowsOpsTpotAndEngines) {
  nlohmann::json golden = {{"ops", 10}, {"total_ps", 2000000}, {"critical_path", {{"by_engine_ps", {{"tensor", 1000000}}}}}};
  nlohmann::json now = {{"ops", 12}, {"total_ps", 2500000}, {"critical_path", {{"by_engine_ps", {{"tensor", 1500000}}}}}};
  std::string row = golden_moved_row("m.dense", golden, now);
  EXPECT_NE(row.find("10 -> 12"), std::string::npos) << row;
  EXPECT_NE(row.find("2.000 -> 2.500 (+25.00%)"), std::string::npos) << row;  // (2.5 - 2) / 2 = 25%
  EXPECT_NE(row.find("tensor 1.000 -> 1.500"), std::string::npos) << row;
}

}  // namespace
}  // namespace stasim
