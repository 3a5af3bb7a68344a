// `stasim goldens` end to end on a copy of tests/golden: a moved value fails the check (exit 1) with the table
// and the value named, and --update rewrites exactly the moved file back to what the simulator produces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

using stasim::test::Output;

Output run(const std::string& args) { return stasim::test::run_stasim(args); }

using stasim::test::slurp;

TEST(GoldensCli, ShippedGoldensPass) {
  Output o = run("goldens");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("20 of 20 golden cases unchanged"));
}

TEST(GoldensCli, AMovedValueFailsAndUpdateRestoresIt) {
  fs::path shipped = fs::path(STASIM_SOURCE_DIR) / "tests/golden";
  fs::path copy = fs::path(testing::TempDir()) / "goldens_copy";
  fs::remove_all(copy);
  fs::copy(shipped, copy);
  fs::path file = copy / "schedule.expert_ffn_tile.json";
  nlohmann::json doc = nlohmann::json::parse(slurp(file));
  doc["total_ps"] = doc["total_ps"].get<std::int64_t>() + 1;
  std::ofstream(file) << doc.dump(2) << '\n';
  std::ofstream(copy / "removed-model.dense.json") << "{}\n";

  Output check = run("goldens --dir " + copy.string());
  EXPECT_EQ(check.code, 1) << check.text;
  EXPECT_THAT(check.text, HasSubstr("19 of 20 golden cases unchanged"));
  EXPECT_THAT(check.text, HasSubstr("schedule.expert_ffn_tile: total_ps: golden 5238419, now 5238418"));
  EXPECT_THAT(check.text, HasSubstr("removed-model.dense: golden file without a case"));
  EXPECT_THAT(check.text, HasSubstr("check failed: 2 golden value(s) moved"));

  Output update = run("goldens --update --dir " + copy.string());
  EXPECT_EQ(update.code, 0) << update.text;
  EXPECT_THAT(update.text, HasSubstr("5.238 -> 5.238 (-0.00%)"));  // 5238419 -> 5238418 ps (the expert_ffn_tile example, ScheduleCli)
  EXPECT_THAT(update.text, HasSubstr("removed-model.dense                     - removed"));
  EXPECT_EQ(slurp(file), slurp(shipped / "schedule.expert_ffn_tile.json"));
  // --update writes only the golden case files: a file no case writes is reported and left as it is.
  EXPECT_THAT(update.text, HasSubstr("left " + (copy / "removed-model.dense.json").string() +
                                     " as it is (no golden case writes it): remove it yourself if its case is gone"));
  EXPECT_EQ(slurp(copy / "removed-model.dense.json"), "{}\n");
  fs::remove(copy / "removed-model.dense.json");
  EXPECT_EQ(run("goldens --dir " + copy.string()).code, 0);
}

}  // namespace
