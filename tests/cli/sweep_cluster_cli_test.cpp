// Sweeps run as a cluster runs them: --out's folder is made, an existing --out is kept unless --resume or
// --force, --resume refuses a file written with another setup, merge refuses parts of different grids and
// reports missing and repeated points, the default --jobs follows the CPU affinity mask, progress comes as whole
// lines when stderr is a file, and a sweep run as shards by GNU parallel merges into the unsharded sweep.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/available_cpus.hpp"
#include "sim/studies/sweep_table.hpp"
#include "tests/cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using stasim::test::Output;
using stasim::test::run_shell;
using stasim::test::run_stasim;
using stasim::test::slurp;
using testing::HasSubstr;

// A folder of its own per test, emptied first (outputs are refused when they exist).
std::string fresh_dir(const std::string& name) { return stasim::test::fresh_dir("sweep_cluster_", name); }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

bool on_path(const std::string& program) { return run_shell("command -v " + program).code == 0; }

const std::string kStasim = STASIM_BINARY;

// 1 dense point + 2 x 2 cardan points (indices 0..4), one layer each.
const std::string kGrid = "sweep --layers 1 --d 4,8 --r 0,256 --K 256";

TEST(SweepClusterCli, TheFolderIsMadeAndAnExistingOutputIsKept) {
  const std::string dir = fresh_dir("exists");
  const std::string out = dir + "/a/b/grid.csv";
  Output o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string first = slurp(out);
  ASSERT_FALSE(first.empty());
  o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--out " + out + ": the file exists"));
  EXPECT_THAT(o.text, HasSubstr("pass --resume to continue the sweep that wrote it, --force to replace it"));
  EXPECT_EQ(slurp(out), first);  // untouched
  o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --resume --force --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--resume excludes --force"));
  o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --force --out " + out);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(slurp(out), first);
  // The meta file records the grid: 2 points, unsharded, and its fingerprint (SHA-256, 64 hex digits).
  const nlohmann::json grid = read_json(out + ".meta.json")["grid"];
  EXPECT_EQ(grid["points"], 2);
  EXPECT_EQ(grid["shard"], 0);
  EXPECT_EQ(grid["shards"], 1);
  EXPECT_EQ(grid["fingerprint"].get<std::string>().size(), 64u);
}

TEST(SweepClusterCli, ResumeRefusesAFileOfAnotherSetup) {
  const std::string dir = fresh_dir("resume");
  const std::string out = dir + "/grid.csv";
  ASSERT_EQ(run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --out " + out).code, 0);
  // The same grid with another DMA cost would give other rows: the recorded setup differs.
  Output o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --set core.dma.issue_ns=1300 --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(out + ": its rows come from a sweep with another setup"));
  // The resolved hardware's hash moved: named by the config's name (the hashes are 12 digits of each).
  EXPECT_THAT(o.text, HasSubstr("hardware trn3-calibrated: another config (SHA-256 "));
  EXPECT_THAT(o.text, HasSubstr("request.set: [] vs [\"core.dma.issue_ns=1300\"] (file vs now)"));
  o = run_stasim("sweep --layers 1 --d 8 --r 0 --jobs 1 --resume --out " + out);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("2 points, 0 run now"));
}

TEST(SweepClusterCli, MergeReportsMissingRepeatedAndForeignParts) {
  const std::string dir = fresh_dir("merge");
  for (int shard = 0; shard < 3; ++shard) {
    Output o = run_stasim(kGrid + " --jobs 1 --shard " + std::to_string(shard) + "/3 --out " + dir + "/p" +
                          std::to_string(shard) + ".csv");
    ASSERT_EQ(o.code, 0) << o.text;
  }
  ASSERT_EQ(run_stasim(kGrid + " --jobs 2 --out " + dir + "/all.csv").code, 0);
  // Shard 2 of 3 holds point 2 only (2 mod 3 = 2; 5 mod 3 would be the next).
  Output m = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --out " + dir + "/m.csv");
  EXPECT_EQ(m.code, 2) << m.text;
  EXPECT_THAT(m.text, HasSubstr("1 of 5 grid points are in no part: shard 2/3 (all 1 of its 1 points: 2)"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));
  m = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --allow-missing --out " + dir + "/m.csv");
  EXPECT_EQ(m.code, 0) << m.text;
  EXPECT_THAT(m.text, HasSubstr("merge: warning: 1 of 5 grid points are in no part"));
  EXPECT_THAT(m.text, HasSubstr("merge: 4 rows from 2 files; 1 grid points missing"));
  // A part given twice: its two rows (points 1 and 4) are kept once, and the merge is the unsharded sweep.
  m = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv " + dir + "/p2.csv " + dir + "/p1.csv --out " + dir +
                 "/m.csv");
  ASSERT_EQ(m.code, 0) << m.text;
  EXPECT_THAT(m.text, HasSubstr("merge: 5 rows from 4 files; 2 repeated rows kept once"));
  EXPECT_EQ(slurp(dir + "/m.csv"), slurp(dir + "/all.csv"));
  EXPECT_EQ(read_json(dir + "/m.csv.meta.json")["grid"]["fingerprint"], read_json(dir + "/all.csv.meta.json")["grid"]["fingerprint"]);
  // A copy of point 1 with another TPOT is not a repeat but a conflict, named at both places.
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(dir + "/p1.csv");
  rows[0]["tpot_us"] = rows[0]["tpot_us"].get<double>() + 1;
  stasim::write_sweep_rows(dir + "/q1.csv", rows);
  fs::copy_file(dir + "/p1.csv.meta.json", dir + "/q1.csv.meta.json");
  m = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv " + dir + "/q1.csv --out " + dir + "/m2.csv");
  EXPECT_EQ(m.code, 2) << m.text;
  EXPECT_THAT(m.text, HasSubstr(dir + "/q1.csv:2: point 1 is also at " + dir + "/p1.csv:2 with another result (tpot_us"));
  // A shard of another grid (r = 0 only: 3 points) is refused naming both files.
  ASSERT_EQ(run_stasim("sweep --layers 1 --d 4,8 --r 0 --jobs 1 --shard 1/3 --out " + dir + "/other.csv").code, 0);
  m = run_stasim("merge " + dir + "/p0.csv " + dir + "/other.csv --out " + dir + "/m3.csv");
  EXPECT_EQ(m.code, 2) << m.text;
  EXPECT_THAT(m.text, HasSubstr(dir + "/p0.csv and " + dir + "/other.csv: parts of different sweep grids (5 vs 3 points"));
}

TEST(SweepClusterCli, DefaultJobsFollowTheCpuAffinity) {
  if (!on_path("taskset")) GTEST_SKIP() << "taskset (util-linux) is not installed";
  const std::string dir = fresh_dir("affinity");
  Output o = run_shell("taskset -c 0 " + kStasim + " sweep --layers 1 --dataflows dense --out " + dir + "/one.csv");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("run now with 1 jobs"));  // one CPU allowed, whatever the machine has
  EXPECT_GE(stasim::available_cpus(), 1);
}

TEST(SweepClusterCli, ProgressComesAsLinesWhenStderrIsAFile) {
  const std::string dir = fresh_dir("progress");
  Output o = run_shell(kStasim + " sweep --layers 1 --d 4,8 --r 0 --jobs 1 --progress-every 0 --out " + dir +
                       "/p.csv 2> " + dir + "/stderr.txt");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string log = slurp(dir + "/stderr.txt");
  // --progress-every 0: a line per finished point (3: dense + d = 4, 8), no carriage returns.
  EXPECT_THAT(log, HasSubstr("sweep: 1/3 points (ok 1, invalid 0, error 0), "));
  EXPECT_THAT(log, HasSubstr("sweep: 3/3 points (ok 3, invalid 0, error 0), "));
  EXPECT_EQ(log.find('\r'), std::string::npos);
  // The default: at most one line per 5 s, so a sweep this short prints none.
  o = run_shell(kStasim + " sweep --layers 1 --d 8 --r 0 --jobs 1 --out " + dir + "/q.csv 2> " + dir + "/stderr2.txt");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(slurp(dir + "/stderr2.txt"), "");
}

// The README's GNU parallel command on a small grid: three shards into parts/ (made by the sweeps), merged, give
// the file the unsharded sweep writes, byte for byte.
TEST(SweepClusterCli, ShardsThroughGnuParallelMergeIntoTheUnshardedSweep) {
  if (!on_path("parallel")) GTEST_SKIP() << "GNU parallel is not installed (Debian package 'parallel', tools/setup)";
  const std::string dir = fresh_dir("parallel");
  Output p = run_shell("cd " + dir + " && parallel --will-cite -j 2 " + kStasim + " " + kGrid +
                       " --jobs 1 --shard {}/3 --out parts/part{}.csv ::: 0 1 2");
  ASSERT_EQ(p.code, 0) << p.text;
  Output m = run_stasim("merge " + dir + "/parts/part0.csv " + dir + "/parts/part1.csv " + dir + "/parts/part2.csv --out " +
                        dir + "/merged.csv");
  ASSERT_EQ(m.code, 0) << m.text;
  EXPECT_THAT(m.text, HasSubstr("merge: 5 rows from 3 files; wrote"));
  ASSERT_EQ(run_stasim(kGrid + " --jobs 2 --out " + dir + "/all.csv").code, 0);
  EXPECT_EQ(slurp(dir + "/merged.csv"), slurp(dir + "/all.csv"));
}

}  // namespace
