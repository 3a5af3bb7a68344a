// `stasim sweep` and `stasim merge` end to end on small one-layer grids of Qwen3-30B-A3B: sharding + merge gives
// the unsharded file byte for byte, --resume runs only the missing points, an invalid point is a row with its
// reason, and a grid without a valid point or with bad ranges/keys is bad input (exit 2); a second sweep on an
// --out being written stops (exit 2) naming the writer, and a point past --point-time-limit is an error row.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/studies/sweep_table.hpp"
#include "tests/cli/cli_runner.hpp"

namespace {

using testing::HasSubstr;

struct Output {
  int code;
  std::string text;
};

Output shell(const std::string& command) {
  std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

Output run(const std::string& args) { return shell(std::string(STASIM_BINARY) + " " + args); }

using stasim::test::slurp;

std::string tmp(const std::string& name) { return testing::TempDir() + "sweep_" + name; }

// 1 dense point + 2 x 2 cardan points, one layer each.
const std::string kGrid = "sweep --layers 1 --d 4,8 --r 0,256 --K 256 --jobs 2";

TEST(SweepCli, ShardsMergedEqualTheUnshardedSweep) {
  ASSERT_EQ(run(kGrid + " --force --out " + tmp("all.csv")).code, 0);
  Output s0 = run(kGrid + " --shard 0/2 --force --out " + tmp("s0.csv"));
  Output s1 = run(kGrid + " --shard 1/2 --force --out " + tmp("s1.jsonl"));
  ASSERT_EQ(s0.code, 0) << s0.text;
  ASSERT_EQ(s1.code, 0) << s1.text;
  EXPECT_THAT(s0.text, HasSubstr("sweep: 3 points (shard 0/2 of 5)"));  // points 0, 2, 4
  EXPECT_THAT(s1.text, HasSubstr("sweep: 2 points (shard 1/2 of 5)"));  // points 1, 3
  Output m = run("merge " + tmp("s0.csv") + " " + tmp("s1.jsonl") + " --out " + tmp("merged.csv"));
  ASSERT_EQ(m.code, 0) << m.text;
  EXPECT_THAT(m.text, HasSubstr("merge: 5 rows from 2 files"));
  std::string all = slurp(tmp("all.csv"));
  EXPECT_EQ(slurp(tmp("merged.csv")), all);
  // The header plus five rows; the dense row leaves d, r, K empty and has speedup 1 against itself.
  std::vector<nlohmann::json> rows = stasim::read_sweep_rows(tmp("all.csv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0]["dataflow"], "dense");
  EXPECT_TRUE(rows[0]["d"].is_null());
  EXPECT_DOUBLE_EQ(rows[0]["speedup_vs_dense"].get<double>(), 1.0);
  for (const auto& row : rows) {
    EXPECT_EQ(row["status"], "ok") << row.dump();
    EXPECT_DOUBLE_EQ(row["speedup_vs_dense"].get<double>(),
                     std::round(rows[0]["tpot_us"].get<double>() / row["tpot_us"].get<double>() * 1e4) / 1e4);
  }
  EXPECT_EQ(rows[1]["key"], "model=qwen3-30b-a3b|hw=trn3-calibrated|batch=1|layers=1|down=weight-sbuf|vary=|dataflow=cardan|drk=4/0/256");
}

TEST(SweepCli, ResumeRunsOnlyTheMissingPoints) {
  std::string out = tmp("resume.csv");
  ASSERT_EQ(run("sweep --layers 1 --d 4 --r 0 --force --out " + out).code, 0);  // dense + cardan (4, 0)
  std::ofstream(out, std::ios::app) << "7,model=cut-by-a-kill";            // a line a killed sweep left behind
  Output o = run(kGrid + " --resume --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("5 points, 3 run now with 2 jobs"));
  EXPECT_THAT(o.text, HasSubstr("2 resumed"));
  ASSERT_EQ(run(kGrid + " --force --out " + tmp("fresh.csv")).code, 0);
  EXPECT_EQ(slurp(out), slurp(tmp("fresh.csv")));
}

// A sweep killed with SIGKILL part-way (however many points it finished) is completed by --resume into the file
// an uninterrupted sweep writes.
TEST(SweepCli, AKilledSweepIsCompletedByResume) {
  const std::string grid = "sweep --layers 4 --dataflows dense,cardan --d 4,8,16 --r 0:256:64 --jobs 1";
  std::string out = tmp("killed.csv");
  std::remove(out.c_str());
  shell("timeout -s KILL 0.3 " + std::string(STASIM_BINARY) + " " + grid + " --out " + out);
  Output resumed = run(grid + " --resume --out " + out);
  ASSERT_EQ(resumed.code, 0) << resumed.text;
  EXPECT_THAT(resumed.text, HasSubstr("sweep: 16 points"));  // 1 dense + 3 d x 5 r
  ASSERT_EQ(run(grid + " --force --out " + tmp("unkilled.csv")).code, 0);
  EXPECT_EQ(slurp(out), slurp(tmp("unkilled.csv")));
}

TEST(SweepCli, AnInvalidPointIsRecordedWithItsReason) {
  std::string out = tmp("invalid.jsonl");
  Output o = run("sweep --layers 1 --dataflows cardan --d 3,8 --r 0 --force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("ok 1, invalid 1, error 0"));
  std::vector<nlohmann::json> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["status"], "invalid");
  EXPECT_THAT(rows[0]["reason"].get<std::string>(), HasSubstr("d = 3 does not divide hidden H = 2048"));
  EXPECT_TRUE(rows[0]["tpot_us"].is_null());
  EXPECT_EQ(rows[1]["status"], "ok");
  EXPECT_EQ(rows[1]["pareto"], 1);
}

TEST(SweepCli, NoValidPointIsBadInput) {
  Output o = run("sweep --layers 1 --dataflows cardan --d 3,5 --r 0 --force --out " + tmp("none.csv"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no valid point in the grid"));
  EXPECT_THAT(o.text, HasSubstr("d = 3 does not divide"));
}

TEST(SweepCli, BadRangesKeysAndShardsAreBadInput) {
  Output range = run("sweep --r 0:512:-64 --out " + tmp("bad.csv"));
  EXPECT_EQ(range.code, 2);
  EXPECT_THAT(range.text, HasSubstr("--r '0:512:-64': the step of '0:512:-64' must be positive"));
  Output word = run("sweep --d 2,x --out " + tmp("bad.csv"));
  EXPECT_EQ(word.code, 2);
  EXPECT_THAT(word.text, HasSubstr("'x' is neither an integer nor start:stop:step"));
  Output key = run("sweep --vary core.dma.engine=8,16 --out " + tmp("bad.csv"));
  EXPECT_EQ(key.code, 2);
  EXPECT_THAT(key.text, HasSubstr("did you mean"));
  Output shard = run("sweep --shard 2/2 --out " + tmp("bad.csv"));
  EXPECT_EQ(shard.code, 2);
  EXPECT_THAT(shard.text, HasSubstr("--shard '2/2'"));
  Output flow = run("sweep --dataflows dense,cardn --out " + tmp("bad.csv"));
  EXPECT_EQ(flow.code, 2);
}

TEST(SweepCli, VaryAddsAPointPerValue) {
  std::string out = tmp("vary.csv");
  Output o = run("sweep --layers 1 --dataflows dense --vary core.dma.issue_ns=650,1300 --force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<nlohmann::json> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["vary"], "core.dma.issue_ns=650");
  EXPECT_EQ(rows[1]["vary"], "core.dma.issue_ns=1300");
  EXPECT_LT(rows[0]["tpot_us"].get<double>(), rows[1]["tpot_us"].get<double>());  // cheaper transfers
}

}  // namespace

// Two sweeps on one --out would interleave their rows: the second stops before writing anything and names the
// process that holds the output's lock (here this test, holding "<out>.lock" as a running sweep does).
TEST(SweepCli, ASecondSweepOnAnOutputBeingWrittenStops) {
  std::string out = tmp("locked.csv");
  std::remove(out.c_str());
  int fd = ::open((out + ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  std::string pid = std::to_string(::getpid()) + "\n";
  ASSERT_EQ(::write(fd, pid.data(), pid.size()), static_cast<ssize_t>(pid.size()));
  Output second = run(kGrid + " --out " + out);
  ::close(fd);  // releases the lock
  EXPECT_EQ(second.code, 2) << second.text;
  EXPECT_THAT(second.text, HasSubstr(out + ": process " + std::to_string(::getpid()) + " is writing it (lock " +
                                     out + ".lock); wait for that sweep to finish or choose another --out"));
  EXPECT_EQ(slurp(out), "");  // nothing written
  // A lock file left by a killed sweep holds no lock: the next sweep runs, and removes the file when done.
  Output next = run(kGrid + " --out " + out);
  EXPECT_EQ(next.code, 0) << next.text;
  EXPECT_FALSE(std::ifstream(out + ".lock").good());
}

// A point that runs past --point-time-limit is stopped and becomes an error row with the reason; the sweep goes
// on to the other points. A 48-layer decode takes far more than a millisecond, so every point here is stopped.
TEST(SweepCli, APointPastTheTimeLimitIsAnErrorRow) {
  std::string out = tmp("limit.jsonl");
  Output o = run("sweep --d 4,8 --r 0 --jobs 2 --point-time-limit 0.001 --force --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;  // no point is ok
  EXPECT_THAT(o.text, HasSubstr("ok 0, invalid 0, error 3"));
  std::vector<nlohmann::json> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 3u);  // dense + cardan d=4, d=8
  for (const nlohmann::json& row : rows) {
    EXPECT_EQ(row["status"], "error");
    EXPECT_EQ(row["reason"], "the point's process ran past the time limit of 0.001 s and was stopped");
  }
  Output bad = run("sweep --point-time-limit -1 --out " + tmp("bad.csv"));
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_THAT(bad.text, HasSubstr("--point-time-limit"));
}
