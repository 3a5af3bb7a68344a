// `--lnc` defaults to the hardware's lnc, as its help says: on trn1 (NeuronCore-v2, no logical cores: lnc 1)
// every shipped model is tried with one core per rank, and it either runs or says why not. One layer each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

struct Trn1Case {
  std::string model;
  int code;
  std::string expected;  // the TPOT line's start, or the reason
};

TEST(Trn1Models, EveryShippedModelRunsOrSaysWhyNot) {
  const std::vector<Trn1Case> cases = {
      {"deepseek-v2-lite", 0, "TPOT 906.912 us"},
      // Its attention weights do not fit trn1's SBUF (24 MiB for 2 cores against trn3's): bad input, exit 2.
      {"deepseek-v3", 2, "error: a weight chunk of 57344 bytes per partition (attn.w) does not fit the 44990 bytes per "
                         "partition of SBUF the kernel gives its weights on trn1"},
      {"gemma-4-26b-a4b", 0, "TPOT 2271.077 us"},
      // With one core per rank an expert's 3584 columns are 7 PSUM tiles of 512 per projection: gate's and up's 14
      // joint accumulators exceed the 8 banks, so each tile is drained to SBUF once summed (it deadlocked before,
      // each up tile waiting for a bank its own gate tile held until φ). The step is DMA-bound (MoE block 659.484
      // us), so it equals --no-joint-psum's (below).
      {"mixtral-8x7b", 0, "TPOT 1330.962 us"},
      {"nemotron-3-nano-30b-a3b", 0, "TPOT 1168.967 us"},
      {"olmoe-1b-7b", 0, "TPOT 591.447 us"},
      {"qwen3-30b-a3b", 0, "TPOT 1098.415 us"},
      {"qwen3-coder-30b-a3b", 0, "TPOT 1098.415 us"},
  };
  Output list = run_stasim("list models");
  for (const Trn1Case& c : cases) EXPECT_THAT(list.text, HasSubstr(c.model + " ")) << "not shipped: " << c.model;
  EXPECT_EQ(std::count(list.text.begin(), list.text.end(), '\n'), static_cast<long>(cases.size())) << "a model without a case";
  for (const Trn1Case& c : cases) {
    SCOPED_TRACE(c.model);
    Output o = run_stasim("run --hw trn1 --layers 1 --model " + c.model);
    EXPECT_EQ(o.code, c.code) << o.text;
    if (c.code == 0) {
      EXPECT_THAT(o.text, HasSubstr(" on trn1, dataflow cardan (hybrid(d=8,r=384,K=256)), tp 4, lnc 1, batch 1, 1 layers\n"));
      EXPECT_THAT(o.text, HasSubstr("\n" + c.expected + " ("));
    } else {
      EXPECT_EQ(o.text.substr(0, c.expected.size()), c.expected);
    }
  }
  Output mixtral = run_stasim("run --hw trn1 --layers 1 --model mixtral-8x7b --no-joint-psum");
  EXPECT_EQ(mixtral.code, 0) << mixtral.text;
  EXPECT_THAT(mixtral.text, HasSubstr("\nTPOT 1330.962 us ("));
}

TEST(Trn1Models, TheLncDefaultIsTheHardwaresAsTheHelpSays) {
  Output help = run_stasim("run --help");
  EXPECT_THAT(help.text, HasSubstr("physical cores per rank (default: the hardware's lnc;"));
  // trn2 has lnc 2, trn1 lnc 1; --lnc overrides either.
  EXPECT_THAT(run_stasim("run --hw trn2 --layers 1").text, HasSubstr(", tp 4, lnc 2, batch 1, 1 layers\n"));
  EXPECT_THAT(run_stasim("run --hw trn1 --layers 1").text, HasSubstr(", tp 4, lnc 1, batch 1, 1 layers\n"));
  EXPECT_THAT(run_stasim("run --hw trn2 --lnc 1 --layers 1").text, HasSubstr(", tp 4, lnc 1, batch 1, 1 layers\n"));
}

}  // namespace
}  // namespace stasim::test
