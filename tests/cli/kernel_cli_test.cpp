// `stasim kernel` (a shipped kernel program, run by name) and `stasim validate --kernels` (every kernel figure
// of configs/reference/kernels.yaml) through the built binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;
using stasim::test::run_stasim;
namespace fs = std::filesystem;

fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("stasim_kernel_cli." + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(std::ifstream(p)); }

TEST(KernelCli, ListNamesEveryShippedKernelWithItsParameters) {
  auto o = run_stasim("kernel --list");
  ASSERT_EQ(o.code, 0) << o.text;
  for (const char* name : {"matmul-tiled", "matmul-hoist-load", "matmul-block-free", "matmul-fully-optimized",
                           "dma-stream", "scalar-chain"})
    EXPECT_THAT(o.text, HasSubstr(name));
  EXPECT_THAT(o.text, HasSubstr("--arg K=8192 --arg M=4096 --arg N=8192"));
  EXPECT_THAT(o.text, HasSubstr("--arg bytes_per_partition=32768 --arg transfers=40"));
}

TEST(KernelCli, OneTransferOfTheDmaStreamIsItsIssueAndItsBytes) {
  const fs::path json = scratch() / "stream.json";
  auto o = run_stasim("kernel dma-stream --arg transfers=1 --json " + json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  // trn2 (the kernel's hardware): [128, 32768 B] = 4 MiB on one queue: 900 ns issue, then 4194304 B at the
  // core's 16 x 23 = 368 B/ns = 11397565.2 -> 11397566 ps (its 128 descriptors x 3.7 ns = 473.6 ns overlap the
  // bytes): 12297.566 ns.
  EXPECT_THAT(o.text, HasSubstr("kernel dma-stream bytes_per_partition=32768 transfers=1"));
  EXPECT_THAT(o.text, HasSubstr("total 12.298 us"));
  const nlohmann::json doc = read_json(json);
  EXPECT_DOUBLE_EQ(doc["total_ns"].get<double>(), 12297.566);
  EXPECT_EQ(doc["ops"].size(), 1u);
  EXPECT_EQ(doc["ops"][0]["queue"], 0);  // the Sync engine's queue
  EXPECT_EQ(doc["hardware"], "trn2");
  EXPECT_TRUE(doc.contains("provenance"));
}

TEST(KernelCli, HardwareAndSetsChangeTheRun) {
  const fs::path a = scratch() / "a.json", b = scratch() / "b.json";
  ASSERT_EQ(run_stasim("kernel dma-stream --arg transfers=1 --json " + a.string()).code, 0);
  // 300 ns less issue: 12297.566 - 600.
  auto o = run_stasim("kernel dma-stream --arg transfers=1 --set core.dma.issue_ns=300 --json " + b.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_DOUBLE_EQ(read_json(b)["total_ns"].get<double>(), 11697.566);
  o = run_stasim("kernel dma-stream --hw trn1 --arg transfers=1 -q --json " + b.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(read_json(b)["hardware"], "trn1");
  EXPECT_GT(read_json(b)["total_ns"].get<double>(), read_json(a)["total_ns"].get<double>());  // 272 < 368 B/ns
}

TEST(KernelCli, BadNamesAndArgumentsExitTwoNamingThem) {
  auto o = run_stasim("kernel matmul-tild");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("unknown kernel 'matmul-tild' (did you mean 'matmul-tiled'?)"));
  o = run_stasim("kernel matmul-tiled --arg Q=3");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("kernel 'matmul-tiled' has no parameter 'Q'"));
  o = run_stasim("kernel matmul-tiled --arg M=100");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("M = 100 must be a positive multiple of 128"));
  o = run_stasim("kernel matmul-tiled --arg M=0");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("must be between 1 and 2^40"));
  o = run_stasim("kernel dma-stream --arg bytes_per_partition=1000000");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("exceed the"));
}

TEST(KernelCli, ValidateKernelsHoldsEveryShippedFigure) {
  const fs::path json = scratch() / "kernels.json";
  auto o = run_stasim("validate --kernels --json " + json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("14 of 14 kernel targets within tolerance"));
  EXPECT_THAT(o.text, testing::ContainsRegex("matmul_tutorial_trn1_bf16.tiled_ms +51.8 +[0-9.]+ +[-+][0-9.]+% +10% pass"));
  const nlohmann::json doc = read_json(json);
  ASSERT_TRUE(doc.contains("kernel_targets"));
  EXPECT_EQ(doc["kernel_targets"].size(), 14u);
  for (const auto& t : doc["kernel_targets"]) EXPECT_TRUE(t["pass"].get<bool>()) << t.dump();
  EXPECT_EQ(doc["kernel_targets"][0]["kernel"], "matmul-tiled");
  EXPECT_EQ(doc["kernel_targets"][0]["hw"], "trn1");
}

std::string reference_with(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(std::string(STASIM_SOURCE_DIR) + "/configs/reference/kernels.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p.string();
}

TEST(KernelCli, AMovedFigureIsAFailedCheckAndABadReferenceIsInputError) {
  // The tiled kernel "measured" at 30 ms: a miss (its speedup target keeps its own measured value), exit 1
  // unless --report-only.
  std::string ref = reference_with("moved.yaml", "metric: total_ms, value: 51.80", "metric: total_ms, value: 30.00");
  auto o = run_stasim("validate --kernels --reference " + ref);
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("MISS"));
  EXPECT_THAT(o.text, HasSubstr("1 of 14 kernel targets out of tolerance"));
  EXPECT_EQ(run_stasim("validate --kernels --report-only --reference " + ref).code, 0);
  // A kernel stasim does not ship: exit 2 naming it.
  ref = reference_with("unknown.yaml", "kernel: matmul-tiled,", "kernel: matmul-tild,");
  o = run_stasim("validate --kernels --reference " + ref);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("matmul-tild"));
  // --kernels checks kernels on their own hardware: --hw is refused with it.
  o = run_stasim("validate --kernels --hw trn2");
  EXPECT_EQ(o.code, 2) << o.text;
}

}  // namespace
