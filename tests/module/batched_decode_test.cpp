// Batched decode and the baselines through the SystemC kernel: on OLMoE-1B-7B the step time of dense and cardan
// rises from B = 1 to 8 to 16 while the time per token falls; xla requests no expert weight before the routing
// has made its round trip through HBM.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {
namespace {

DecodeRun run_batch(const std::string& dataflow, std::int64_t batch, std::int64_t layers = 0) {
  DataflowRegistry registry;
  register_builtin(registry);
  RunRequest req;
  req.model = "olmoe-1b-7b";
  req.dataflow = dataflow;
  req.batch = batch;
  req.layers = layers;
  req.down = "weight-sbuf";  // one simulation per point
  return run_decode(req, registry);
}

TEST(BatchedDecode, StepTimeRisesAndTimePerTokenFallsWithTheBatch) {
  for (const char* dataflow : {"dense", "cardan"}) {
    SCOPED_TRACE(dataflow);
    DecodeRun b1 = run_batch(dataflow, 1), b8 = run_batch(dataflow, 8), b16 = run_batch(dataflow, 16);
    EXPECT_LT(b1.result.total_ps, b8.result.total_ps);
    EXPECT_LT(b8.result.total_ps, b16.result.total_ps);
    EXPECT_GT(b1.result.total_ps / 1, b8.result.total_ps / 8);
    EXPECT_GT(b8.result.total_ps / 8, b16.result.total_ps / 16);
    // Only the activated experts at every batch size (the selective kernel's loop; all of them only with
    // --all-experts): B = 1 runs its top-8; B = 8's 64 routes, drawn uniformly with seed 0 over 64 experts,
    // activate 43 distinct experts, not all 64.
    EXPECT_EQ(b1.decode.experts.size(), 8u);
    EXPECT_FALSE(b8.decode.experts.all_experts);
    EXPECT_EQ(b8.decode.experts.size(), 43u);
  }
}

TEST(BatchedDecode, JsonReportsTimePerToken) {
  DecodeRun r = run_batch("dense", 4, 2);
  nlohmann::json doc = decode_json(r);
  EXPECT_EQ(doc["deployment"]["batch"], 4);
  EXPECT_DOUBLE_EQ(doc["us_per_token"].get<double>(),
                   static_cast<double>((r.tpot_ps() / 4 + 500) / 1000) / 1000.0);
}

TEST(BatchedDecode, BatchAboveSixtyFourIsAnInputError) {
  EXPECT_THROW(run_batch("dense", 65, 1), InputError);
  EXPECT_THROW(run_batch("dense", 0, 1), InputError);
}

TEST(XlaBaseline, NoExpertWeightIsRequestedBeforeTheRoutingRoundTrip) {
  DecodeRun r = run_batch("xla", 1, 2);
  const ScheduleGraph& g = r.decode.graph;
  for (const char* layer : {"L0.", "L1."}) {
    for (std::uint32_t core = 0; core < 2; ++core) {
      std::string prefix = std::string(layer) + "c" + std::to_string(core) + ".";
      Picoseconds routed = -1;
      for (OpId v = 0; v < g.size(); ++v)
        if (g.name(v) == prefix + "moe.routes.reload") routed = r.result.ops[v].end_ps;
      ASSERT_GE(routed, 0);
      std::size_t loads = 0;
      for (OpId v = 0; v < g.size(); ++v) {
        const Op& op = g.op(v);
        if (op.engine != Engine::dma || g.name(v).rfind(prefix + "e", 0) != 0 || g.name(v).find(".load") == std::string::npos)
          continue;
        ++loads;
        EXPECT_GE(r.result.ops[v].start_ps, routed) << g.name(v);
      }
      EXPECT_EQ(loads, 8u * 3u);  // gate, up, down chunk of each of the 8 experts
    }
  }
  // And it is slower than the fused megakernel on the same step.
  EXPECT_GT(r.result.total_ps, run_batch("dense", 1, 2).result.total_ps);
}

}  // namespace
}  // namespace stasim

namespace stasim {
namespace {

TEST(FuseProjections, IsAnInputErrorWhereNothingFuses) {
  DataflowRegistry registry;
  register_builtin(registry);
  for (const char* model : {"qwen3-30b-a3b", "olmoe-1b-7b", "gemma-4-26b-a4b"}) {
    RunRequest req;
    req.model = model;
    req.dataflow = "dense";
    req.layers = 1;
    req.fuse_projections = true;
    EXPECT_THROW(run_decode(req, registry), InputError) << model;
  }
}

}  // namespace
}  // namespace stasim
