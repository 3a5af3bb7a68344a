// Determinism end to end: the same inputs give byte-identical output files over ten runs of `run --json`,
// `schedule --json` and `sweep` (alternating --jobs 1 and --jobs 2), and a sweep split into shards run with one
// job and merged equals the unsharded sweep run with two (sweep_cli_test.cpp covers two shards with two jobs).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;
using stasim::test::run_stasim;

using stasim::test::slurp;

std::string tmp(const std::string& name) { return testing::TempDir() + "determinism_" + name; }

// Runs `args` with `{out}` replaced by one file, removed before each run, ten times (`vary(i)` appended to the
// i-th run) and expects the ten outputs to be byte-identical and not empty. One path for all ten: a JSON result
// records its command line (provenance), output file name included.
void expect_ten_identical(const std::string& name, const std::string& args, std::string (*vary)(int) = nullptr) {
  std::string first;
  for (int i = 0; i < 10; ++i) {
    std::string out = tmp(name + (args.find("sweep") == 0 ? ".csv" : ".json"));
    std::filesystem::remove(out);
    std::string command = args;
    command.replace(command.find("{out}"), 5, out);
    if (vary) command += vary(i);
    Output o = run_stasim(command);
    ASSERT_EQ(o.code, 0) << command << "\n" << o.text;
    std::string text = slurp(out);
    if (i == 0) {
      ASSERT_FALSE(text.empty()) << command;
      first = text;
    } else {
      ASSERT_EQ(text, first) << "run " << i << " differs: " << command;
    }
  }
}

TEST(Determinism, RunJsonIsByteIdenticalOverTenRuns) {
  // Two layers of the hybrid dataflow with the auto down schedule: five simulations per run, a routed batch.
  expect_ten_identical("run", "run --quiet --dataflow cardan --layers 2 --batch 4 --down-schedule auto --json {out}");
}

TEST(Determinism, ScheduleJsonIsByteIdenticalOverTenRuns) {
  expect_ten_identical("schedule", "schedule --quiet --schedule configs/schedules/psum_contention.yaml --json {out}");
}

TEST(Determinism, SweepIsByteIdenticalOverTenRunsWithOneOrTwoJobs) {
  expect_ten_identical("sweep", "sweep --layers 1 --dataflows dense,cardan --d 8 --r 0,256 --out {out}",
                       [](int i) { return std::string(i % 2 == 0 ? " --jobs 1" : " --jobs 2"); });
}

TEST(Determinism, ShardsRunWithOneJobMergeIntoTheUnshardedSweep) {
  const std::string grid = "sweep --layers 1 --dataflows dense,cardan --d 4,8 --r 0,256";
  Output all = run_stasim(grid + " --jobs 2 --force --out " + tmp("all.jsonl"));
  ASSERT_EQ(all.code, 0) << all.text;
  std::string merge = "merge --out " + tmp("merged.jsonl");
  for (int shard = 0; shard < 3; ++shard) {
    std::string out = tmp("shard" + std::to_string(shard) + ".jsonl");
    Output o = run_stasim(grid + " --jobs 1 --shard " + std::to_string(shard) + "/3 --force --out " + out);
    ASSERT_EQ(o.code, 0) << o.text;
    merge += " " + out;
  }
  Output m = run_stasim(merge);
  ASSERT_EQ(m.code, 0) << m.text;
  EXPECT_THAT(m.text, testing::HasSubstr("merge: 5 rows from 3 files"));
  EXPECT_EQ(slurp(tmp("merged.jsonl")), slurp(tmp("all.jsonl")));
}

}  // namespace
