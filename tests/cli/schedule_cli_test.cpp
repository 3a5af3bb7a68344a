// The stasim binary end to end: `schedule` on the shipped example, its JSON, overrides, exit codes for bad
// input (2) and simulation errors (1), and no SystemC banner in any output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;
using testing::Not;

using stasim::test::Output;

Output run(const std::string& args) { return stasim::test::run_stasim(args); }

std::string temp_file(const std::string& name, const std::string& content) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path) << content;
  return path;
}

TEST(ScheduleCli, ShippedExampleRunsWithoutABanner) {
  Output o = run("schedule");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("total 5.238 us"));
  EXPECT_THAT(o.text, HasSubstr("critical path: 5 ops: load_h -> mm_gate -> silu -> mul -> store"));
  EXPECT_THAT(o.text, Not(HasSubstr("Copyright")));
  EXPECT_THAT(o.text, Not(HasSubstr("SystemC")));
}

TEST(ScheduleCli, JsonHoldsTheDocumentedFields) {
  std::string out = testing::TempDir() + "result.json";
  Output o = run("schedule --quiet --json " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  // expert_ffn_tile, in ns (each step rounded to the picosecond). The three loads move from their 900 ns issue;
  // each has 128 descriptors (one per partition) x 2.58 ns = 330.24 ns, more per byte than core 0's 0.528 B/ps
  // even for the weights (330240 / 131072 = 2.52 ps/B > 1.894): all three are bound by the core's descriptor
  // processing, a third each, and end together at 900 + 3 x 330.24 = 1890.72. mm_gate starts 290 ns later (the
  // DMA's completion) at 2180.72; 544 cycles at 2.4 GHz = 226.667 at full rate, the idle tensor engine's dI/dt
  // throttle runs it at half rate (453.334), its result written 128 cycles (53.333) later: 2687.387. silu
  // (+ 50 semaphore) 2737.387 + 512 / 1.2 GHz = 426.667 + 370 cycles' latency 308.333 = 3472.387; mul
  // 3522.387 -> 4257.387; store (1 partition: one engine at 33 B/ns, 1024 / 0.033 = 31.031) from 4307.387 +
  // 900 issue: 5238.418.
  EXPECT_DOUBLE_EQ(j["total_ns"].get<double>(), 5238.418);
  EXPECT_EQ(j["ops"].size(), 8u);
  EXPECT_EQ(j["ops"][3]["name"], "mm_gate");
  EXPECT_EQ(j["ops"][3]["bound_by"], "dep:load_h");  // the three loads end together: the first listed dependency
  EXPECT_DOUBLE_EQ(j["ops"][3]["start_ns"].get<double>(), 2180.720);
  EXPECT_EQ(j["engines"]["tensor"]["instructions"], 2);
  EXPECT_EQ(j["dma"]["transfers"], 4);
  EXPECT_EQ(j["dma"]["hbm_read_bytes"], 262400);  // 256 + 2 x 131072
  EXPECT_EQ(j["dma"]["hbm_write_bytes"], 1024);
  EXPECT_EQ(j["psum"]["peak_banks"], 2);
  EXPECT_EQ(j["sbuf"]["capacity_bytes"], 128 * 245496);
  EXPECT_EQ(j["critical_path"]["ops"].size(), 5u);
  EXPECT_DOUBLE_EQ(j["critical_path"]["wait_ns"].get<double>(), 440.0);  // DMA completion 290 + three semaphore hops
  EXPECT_EQ(j["sim"]["ops"], 8);
}

TEST(ScheduleCli, SetOverridesAHardwareKey) {
  std::string out = testing::TempDir() + "fast.json";
  Output o = run("schedule --quiet --set core.dma.issue_ns=300 --json " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  // Two transfers on the critical path each lose 600 ns of issue: 5238.418 - 1200.
  EXPECT_DOUBLE_EQ(j["total_ns"].get<double>(), 4038.418);
}

TEST(ScheduleCli, BadInputExitsTwoWithFileLineAndKey) {
  Output o = run("schedule --set core.dma.isue_ns=3");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("did you mean 'core.dma.issue_ns'?"));

  std::string bad = temp_file("bad.yaml", "ops:\n  - {name: a, engine: vector, duration_ns: 5, deps: [b]}\n");
  o = run("schedule --schedule " + bad);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr(bad + ":2: op 'a': deps: unknown op 'b'"));

  std::string malformed = temp_file("malformed.yaml", "ops:\n  - {name: a, engine: vector\n");
  o = run("schedule --schedule " + malformed);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("malformed YAML"));

  o = run("schedule --schedule /nonexistent.yaml");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("/nonexistent.yaml: cannot open the file"));

  o = run("schedule --no-such-flag");
  EXPECT_EQ(o.code, 2);
}

// A user's schedule that cannot complete is bad input (exit 2); the report names each stuck op by file and
// line, what it waits for, and the wait cycle.
TEST(ScheduleCli, DeadlockIsBadInputListingTheStuckOps) {
  std::string path = temp_file("deadlock.yaml", R"(ops:
  - {name: mm1, engine: tensor, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: mm2, engine: tensor, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: r1, engine: tensor, duration_ns: 10, deps: [mm1], releases_psum_bank: 0}
  - {name: r2, engine: tensor, duration_ns: 10, deps: [mm2], releases_psum_bank: 0}
)");
  Output o = run("schedule --schedule " + path);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("error: deadlock: 3 of 4 ops never ran; the simulation ran out of events with them waiting:\n"
                                "  " + path + ":3: op 'mm2' (core 0 tensor): needs PSUM bank 0, held by group 'mm1' "
                                "(from 'mm1') until 'r1' releases it\n"
                                "  " + path + ":4: op 'r1' (core 0 tensor): queued behind 'mm2'\n"
                                "  " + path + ":5: op 'r2' (core 0 tensor): queued behind 'mm2' (and 1 unfinished dependency)\n"
                                "wait cycle: 'mm2' waits for 'r1' (PSUM bank), 'r1' waits for 'mm2' (queue order)\n"));
  EXPECT_THAT(o.text, Not(HasSubstr("simulation error")));
}

TEST(BenchCli, PrintsThroughputAndMemory) {
  Output o = run("bench --ops 20000");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("simulated ops/s"));
  EXPECT_THAT(o.text, HasSubstr("bytes per op"));
}

}  // namespace

namespace {

TEST(ScheduleCli, ShippedPsumContentionExampleWaitsForTheDrain) {
  std::string out = testing::TempDir() + "psum.json";
  Output o = run("schedule --quiet --schedule configs/schedules/psum_contention.yaml --json " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : j["ops"]) ops[op["name"]] = op;
  // Group c needs bank 0, held by group a until drain_a ends. The tensor engine starts idle, so its dI/dt
  // throttle halves its rate until 1.5 of the last 3 us were busy: a1's interval 0-453.334 (544 cycles /
  // 2.4 GHz = 226.667 at full rate, x 2), a2's 453.334-880 (512 cycles, the stationary reused: 213.333 x 2),
  // written 128 cycles (53.333) later at 933.333; drain_a starts 933.333 + 50 = 983.333 and takes
  // 512 / 1.2 GHz = 426.667 + its 370 cycles' latency 308.333 -> 1718.333.
  EXPECT_EQ(ops["c1"]["bound_by"], "psum:drain_a");
  EXPECT_DOUBLE_EQ(ops["a2"]["end_ns"].get<double>(), 933.333);
  EXPECT_DOUBLE_EQ(ops["c1"]["start_ns"].get<double>(), 1718.333);
  EXPECT_EQ(j["psum"]["peak_banks"], 2);
}

TEST(ScheduleCli, ShippedExamplesAllRun) {
  for (const char* s : {"expert_ffn_tile", "dma_sharing", "psum_contention", "cross_core_reduce"}) {
    Output o = run(std::string("schedule --quiet --schedule configs/schedules/") + s + ".yaml");
    EXPECT_EQ(o.code, 0) << s << "\n" << o.text;
  }
}

}  // namespace

namespace {

// The instruction keys of a schedule op: func (ScalarE's activation table), accumulate, a DMA transpose, and
// TensorE row/column tiling of small matmuls (nc_matmul tile_position / tile_size).
TEST(ScheduleCli, InstructionKeysTimeAsTheHardwareDoes) {
  std::string yaml = temp_file("keys.yaml", R"(ops:
  - {name: a, engine: scalar, kind: activation, free: 128, func: exp}
  - {name: b, engine: scalar, kind: activation, free: 128, func: exp, accumulate: true}
  - {name: m, engine: tensor, kind: matmul, k: 32, m: 32, n: 128, tile_position: [0, 32], tile_size: [32, 32]}
  - {name: m2, engine: tensor, kind: matmul, k: 32, m: 32, n: 128, tile_position: [32, 0], tile_size: [32, 32]}
)");
  std::string out = testing::TempDir() + "keys.json";
  Output o = run("schedule --quiet --schedule " + yaml + " --json " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : j["ops"]) ops[op["name"]] = op;
  // a loads the exp table (1570 cycles at 1.2 GHz = 1308.333 ns) then runs max(64, 128) = 128 cycles (106.667):
  // its interval ends at 1415, its result 370 cycles (308.333) later: 1723.333.
  EXPECT_DOUBLE_EQ(ops["a"]["end_ns"].get<double>(), 1723.333);
  // b uses the same table (no load) and reads out its accumulator: 128 + 64 = 192 cycles = 160 ns from 1415:
  // 1575 + 308.333.
  EXPECT_DOUBLE_EQ(ops["b"]["start_ns"].get<double>(), 1415.0);
  EXPECT_DOUBLE_EQ(ops["b"]["end_ns"].get<double>(), 1883.333);
  // Two 32 x 32 PE tiles that do not overlap run at once: both from 0, max(min(64, 32), 128) + 32 = 160 cycles
  // at 2.4 GHz = 66.667 ns, at half rate on the idle engine (dI/dt throttle) 133.333, + the 128-cycle latency
  // 53.333 = 186.667.
  EXPECT_DOUBLE_EQ(ops["m"]["start_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(ops["m2"]["start_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(ops["m2"]["end_ns"].get<double>(), 186.667);
}

TEST(ScheduleCli, BadInstructionKeysExitTwoNamingThePlace) {
  Output o = run("schedule --schedule " +
                 temp_file("func.yaml", "ops:\n  - {name: a, engine: scalar, kind: activation, free: 128, func: exq}\n"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("func.yaml:2:60: ops[0].func: unknown activation function 'exq' (did you mean 'exp'?)"));
  o = run("schedule --schedule " + temp_file("engine.yaml", "ops:\n  - {name: g, engine: vector, kind: gather, free: 12}\n"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("op 'g': the vector engine cannot run 'gather' (gpsimd can)"));
  o = run("schedule --schedule " +
          temp_file("tile.yaml", "ops:\n  - {name: m, engine: tensor, kind: matmul, k: 32, m: 32, n: 128, "
                                 "tile_position: [0, 100], tile_size: [32, 32]}\n"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("op 'm': PE tile 32 x 32 at (0, 100) is not a tile of the 128 x 128 array"));
  // A zero size is no tile (not the whole array taken silently); a position past the array is refused.
  o = run("schedule --schedule " +
          temp_file("zero.yaml", "ops:\n  - {name: m, engine: tensor, kind: matmul, k: 32, m: 32, n: 128, tile_size: [0, 0]}\n"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("ops[0].tile_size: expected [rows, columns], each between 1 and 128"));
  o = run("schedule --schedule " +
          temp_file("far.yaml", "ops:\n  - {name: m, engine: tensor, kind: matmul, k: 32, m: 32, n: 128, "
                                "tile_size: [32, 32], tile_position: [128, 0]}\n"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("ops[0].tile_position: expected [row, column], each between 0 and 127"));
}

}  // namespace
