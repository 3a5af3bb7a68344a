// Runs the built stasim binary on the route-alignment commands and checks outputs and exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Outcome run_stasim(const std::string& args) {
  const stasim::test::Output o = stasim::test::run_stasim(args);
  return {o.code, o.text};
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("stasim_route_cli_" + name)).string();
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RouteBlocksCli, PartitionOfThePublishedCaseAtGrid246) {
  const std::string json = temp_path("p246.json");
  const Outcome o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 246 "
                               "--group 128 --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "remainder starts at block 41, N-tile 0; iters 16; split tiles 108")) << o.output;
  const nlohmann::json p = read_json(json);
  // T = 600, R = 600 mod 246 = 108 (3 * 108 > 246: no merge), W = 2, 492 direct tiles = 41 blocks x 12.
  EXPECT_EQ(p["waves"], 2);
  EXPECT_EQ(p["direct_tiles"], 492);
  EXPECT_EQ(p["remainder_tiles"], 108);
  EXPECT_EQ(p["remainder_start"]["block"], 41);
  EXPECT_EQ(p["remainder_start"]["n_tile"], 0);
  EXPECT_EQ(p["iters"], 16);  // ceil(32 * 108 / 246) = 15 -> multiple of 2 -> 16
  EXPECT_EQ(p["split_tiles"], 108);
  ASSERT_EQ(p["tiles"].size(), 600u);
  EXPECT_EQ(p["tiles"][491]["class"], "direct");  // block 40, N-tile 11
  const nlohmann::json& first_split = p["tiles"][492];
  EXPECT_EQ(first_split["block"], 41);
  EXPECT_EQ(first_split["class"], "split");
  ASSERT_EQ(first_split["slices_in_reduction_order"].size(), 2u);
  EXPECT_EQ(first_split["slices_in_reduction_order"][0]["k_tile_begin"], 16);  // high K half deposits first
  EXPECT_EQ(first_split["slices_in_reduction_order"][1]["k_tile_begin"], 0);
}

TEST(RouteBlocksCli, PartitionOfThePublishedCaseAtGrid200) {
  const std::string json = temp_path("p200.json");
  const Outcome o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 200 "
                               "--group 128 --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const nlohmann::json p = read_json(json);
  // 600 mod 200 = 0 -> merge: R = 200, W = 2, 400 direct = block 33 N-tile 4; iters 32: no splits.
  EXPECT_EQ(p["merged_wave"], true);
  EXPECT_EQ(p["remainder_tiles"], 200);
  EXPECT_EQ(p["waves"], 2);
  EXPECT_EQ(p["direct_tiles"], 400);
  EXPECT_EQ(p["remainder_start"]["block"], 33);
  EXPECT_EQ(p["remainder_start"]["n_tile"], 4);
  EXPECT_EQ(p["iters"], 32);
  EXPECT_EQ(p["split_tiles"], 0);
}

TEST(RouteBlocksCli, AutoLaunchPicksGrid246) {
  // 21 tokens x top-8 = 168 routed tokens: 12 N-tiles * 168 * 4 = 8064 >= 82 * 3, the small-problem clause
  // leaves the count alone (the arithmetic is in partition_published_test).
  const Outcome o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --group 128 --auto-launch --routed-tokens 168");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "thread_k 64, thread_n 128, 128 threads, 3 blocks/SM x 82 SMs = grid 246\n")) << o.output;
}

TEST(RouteBlocksCli, AutoLaunchAppliesTheSmallProblemClause) {
  // 4 routed tokens: for k64 n128, 12 * 4 * 4 = 192 < 82 * 3 -> 192 / 82 = 2 blocks per SM, grid 164.
  const Outcome o = run_stasim("partition --blocks 4 --n 1536 --k 2048 --group 128 --auto-launch --routed-tokens 4");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "thread_k 64, thread_n 128, 128 threads, 2 blocks/SM x 82 SMs = grid 164 "
                                 "(small-problem clause: 12 N-tiles x 4 routed tokens x 4 = 192 < 82 SMs x 3 "
                                 "resident)")) << o.output;
}

TEST(RouteBlocksCli, FullKCountsWavesAndTheTail) {
  // T = 600, G = 246: W = floor(600 / 246) = 2 full waves (492 tiles), tail R = 108 from block 41, each tile
  // one full-K slice (F), no split.
  const std::string json = temp_path("fullk.json");
  Outcome o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 246 "
                         "--group 128 --full-k --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "waves 2, direct tiles 492, remainder tiles 108 (tail: one full-K slice each)\n"
                                 "remainder starts at block 41, N-tile 0; iters 32; split tiles 0")) << o.output;
  EXPECT_TRUE(contains(o.output, "0-40     DDDDDDDDDDDD\n41-49    FFFFFFFFFFFF")) << o.output;
  nlohmann::json p = read_json(json);
  EXPECT_EQ(p["waves"], 2);
  EXPECT_EQ(p["remainder_tiles"], 108);
  EXPECT_EQ(p["remainder_start"]["block"], 41);
  EXPECT_EQ(p["tiles"][492]["class"], "stream_full_k");
  // G = 200: 600 = 3 * 200, no tail and no remainder start.
  o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 200 --group 128 "
                 "--full-k --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "no remainder: 600 tiles = 3 full waves of 200; iters 32; split tiles 0")) << o.output;
  p = read_json(json);
  EXPECT_EQ(p["waves"], 3);
  EXPECT_EQ(p["remainder_tiles"], 0);
  EXPECT_TRUE(p["remainder_start"].is_null());
}

TEST(RouteBlocksCli, AlignReportsTheSmallBatchPath) {
  // 33 routes, all to expert 0 of 2, b = 8: small path, 32 counting threads; thread 0 places routes 0 and 32
  // first, so block 0 is 0 32 1 2 3 4 5 6.
  std::string csv;
  for (int i = 0; i < 33; ++i) csv += "0\n";
  const std::string routes = write_temp("r33.csv", csv);
  const std::string json = temp_path("a33.json");
  const Outcome o = run_stasim("align --routes " + routes + " --experts 2 --block-size 8 --seed 9 --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "alignment path: small-batch kernel (33 routes < 1024, E 2 <= 64): 32 counting "
                                 "threads, thread r mod 32 places route r; native order is deterministic")) << o.output;
  EXPECT_TRUE(contains(o.output, "order native (thread order; --seed 9 has no effect here)")) << o.output;
  EXPECT_TRUE(contains(o.output, "    0       0  0  0 32 1 2 3 4 5 6\n")) << o.output;
  const nlohmann::json a = read_json(json);
  EXPECT_EQ(a["alignment_path"], "small-batch");
  EXPECT_EQ(a["counting_threads"], 32);
  EXPECT_EQ(a["blocks"][0]["members"], nlohmann::json({0, 1, 2, 3, 4, 5, 6, 32}));
}

TEST(RouteBlocksCli, AlignReportsTheLargeBatchPath) {
  // 21 x 8 = 168 routes over E = 128 > 64: the atomic path; the seed is the history.
  const Outcome o = run_stasim("align --generate --tokens 21 --routing-seed 4 --seed 3");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "alignment path: large-batch kernel (168 routes < 1024, E 128 > 64): atomics "
                                 "place the routes")) << o.output;
  EXPECT_TRUE(contains(o.output, "order native seed 3")) << o.output;
}

TEST(RouteBlocksCli, AlignsARoutesFileCanonically) {
  // Routes r = token*2 + slot: e2, e0 | e0, e3 | e0, e2. Block size 2: e0 {1, 2, 4} -> 2 blocks; e2 {0, 5};
  // e3 {3} + padding (sentinel 6). 8 rows, 4 blocks.
  const std::string routes = write_temp("r.yaml", "ids:\n  - [2, 0]\n  - [0, 3]\n  - [0, 2]\n");
  const std::string json = temp_path("align.json");
  const Outcome o = run_stasim("align --routes " + routes + " --experts 4 --order canonical --block-size 2 --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "num_tokens_post_padded 8, blocks 4, capacity 10 rows, sentinel 6")) << o.output;
  const nlohmann::json a = read_json(json);
  EXPECT_EQ(a["sorted_route_ids"], nlohmann::json({1, 2, 4, 6, 0, 5, 3, 6, 6, 6}));
  EXPECT_EQ(a["expert_ids"], nlohmann::json({0, 0, 2, 3, -1}));
  EXPECT_EQ(a["fingerprint"], "0:0:1,2;0:1:4;2:0:0,5;3:0:3;");
}

TEST(RouteBlocksCli, InjectsAPlanAndChecksIt) {
  const std::string routes = write_temp("p.yaml", "ids:\n  - [2, 0]\n  - [0, 3]\n  - [0, 2]\n");
  // Route 1 moved from e0's first block to its second: a different membership, same layout.
  const std::string plan = write_temp("plan.txt", "4, 2, 1, 6\n0 5 3 6\n");
  const std::string json = temp_path("plan.json");
  Outcome o = run_stasim("align --routes " + routes + " --experts 4 --block-size 2 --plan " + plan + " --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(read_json(json)["fingerprint"], "0:0:2,4;0:1:1;2:0:0,5;3:0:3;");
  EXPECT_EQ(read_json(json)["order"], "injected");
  // Route 0 belongs to expert 2, not to expert 0's range.
  const std::string bad = write_temp("bad_plan.txt", "0, 2, 1, 6, 4, 5, 3, 6\n");
  o = run_stasim("align --routes " + routes + " --experts 4 --block-size 2 --plan " + bad);
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "alignment plan row 0: route 0 goes to expert 2")) << o.output;
}

TEST(RouteBlocksCli, NativeAlignmentIsDeterministicForASeed) {
  const Outcome a = run_stasim("align --generate --tokens 21 --routing-seed 4 --seed 1");
  const Outcome b = run_stasim("align --generate --tokens 21 --routing-seed 4 --seed 1");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_TRUE(contains(a.output, "block size 8 (reference rule)")) << a.output;  // 168 / 128 / 8 < 0.9
}

TEST(RouteBlocksCli, ReplayShowsTheSixFindings) {
  const std::string json = temp_path("replay.json");
  const Outcome o = run_stasim("replay --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const char* verdict : {"distinct", "reproduced", "transferred", "preserved", "collapsed", "canonical third"})
    EXPECT_TRUE(contains(o.output, verdict)) << verdict;
  EXPECT_FALSE(contains(o.output, "DOES NOT HOLD")) << o.output;
  EXPECT_TRUE(contains(o.output, "alignment path: large-batch kernel (168 routes, E 128)")) << o.output;
  const nlohmann::json r = read_json(json);
  EXPECT_EQ(r["fixture"]["alignment_path"], "large-batch");
  EXPECT_EQ(r["all_findings_hold"], true);
  EXPECT_EQ(r["fixture"]["direct_block"], 40);
  EXPECT_EQ(r["fixture"]["split_block"], 41);
  ASSERT_EQ(r["rows"].size(), 14u);
  EXPECT_NE(r["rows"][0]["hashes"]["final"], r["rows"][1]["hashes"]["final"]);
  EXPECT_EQ(r["rows"][10]["hashes"]["w13"], r["rows"][11]["hashes"]["w13"]);
  EXPECT_EQ(r["rows"][0]["hashes"]["w13"].get<std::string>().size(), 64u);  // full SHA-256 in JSON
}

TEST(RouteBlocksCli, BadInputExitsTwoNamingTheValue) {
  struct Case {
    std::string args, message;
  };
  const std::string out_of_range = write_temp("oob.csv", "3,1\n0,128\n");
  const std::string ragged = write_temp("ragged.csv", "3,1\n0,3,2\n");
  const std::string nonfinite = write_temp("nan.json", R"({"ids": [[3, 1]], "weights": [[0.5, 1e999]]})");
  const std::string nan_csv = write_temp("nan.csv", "3,1,nan,0.5\n");
  const Case cases[] = {
      {"align --routes " + out_of_range, "expert id 128 is outside [0, 128)"},
      {"align --routes " + ragged, "ragged row: 3 fields"},
      {"align --routes " + nonfinite + " --experts 4", "is not finite"},
      {"align --routes " + nan_csv + " --experts 4", "weight nan is not finite"},
      {"align --generate --block-size 0", "--block-size must be positive, got 0"},
      {"align --generate --block-size -8", "--block-size must be positive, got -8"},
      {"partition --blocks 50 --n 1500 --k 2048 --thread-n 128 --thread-k 64 --grid 246", "n = 1500 is not divisible"},
      {"partition --blocks 50 --n 1536 --k 2000 --thread-n 128 --thread-k 64 --grid 246", "k = 2000 is not divisible"},
      {"partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 0", "grid must be positive, got 0"},
      {"replay --grid 0", "--grid must be positive, got 0"},
      {"partition --blocks 50 --n 1536 --k 2048 --thread-n 32 --thread-k 64 --grid 246",
       "thread_n = 32 is below Marlin's minimum thread tile 64 (min_thread_n)"},
      {"partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 32 --grid 246",
       "thread_k = 32 is below Marlin's minimum thread tile 64 (min_thread_k)"},
      {"partition --blocks 50 --n 1536 --k 2048 --group 128 --auto-launch", "--auto-launch needs --routed-tokens"},
      {"partition --blocks 50 --n 1536 --k 2048 --group 128 --auto-launch --routed-tokens 0",
       "--routed-tokens must be positive, got 0"},
      {"partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 246 --routed-tokens 8",
       "--routed-tokens only applies with --auto-launch"},
      {"partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 246 --sms 80",
       "--sms requires --auto-launch"},
  };
  for (const Case& c : cases) {
    const Outcome o = run_stasim(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, c.message)) << c.args << "\n" << o.output;
  }
}

}  // namespace
