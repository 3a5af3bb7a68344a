// Runs the built stasim binary on the route-alignment commands and checks outputs and exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Outcome run_stasim(const std::string& args) {
  const std::string command = std::string(STASIM_BINARY) + " " + args + " 2>&1";
  Outcome o;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) o.output.append(buffer, n);
  const int status = pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
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
  const Outcome o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --group 128 --auto-launch");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "thread_k 64, thread_n 128, 128 threads, 3 blocks/SM x 82 SMs = grid 246")) << o.output;
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
  const nlohmann::json r = read_json(json);
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
  };
  for (const Case& c : cases) {
    const Outcome o = run_stasim(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, c.message)) << c.args << "\n" << o.output;
  }
}

}  // namespace
