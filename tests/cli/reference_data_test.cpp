// Reading configs/reference/published.yaml: one target per figure, each mapped to the decode run predicting it.
#include <gtest/gtest.h>

#include "sim/studies/reference_data.hpp"

namespace stasim {
namespace {

TEST(ReferenceData, ExpandsPerVariantFiguresAndMapsEachToItsRun) {
  DataflowRegistry registry;
  register_builtin(registry);
  ReferenceData ref = load_reference(std::string(STASIM_SOURCE_DIR) + "/configs/reference/published.yaml", registry);
  EXPECT_EQ(ref.model, "qwen3-30b-a3b");
  EXPECT_EQ(ref.tp, 4);
  EXPECT_EQ(ref.lnc, 2);
  EXPECT_EQ(ref.batch, 1);
  // 2 TPOT + 3 ablation steps + 4 profile metrics x 2 variants + 3 GpSimd times by rate + 2 HBM-read changes
  // + 1 step-time ratio + 2 six-layer TPOTs + 1 attention share = 22 targets; 4 facts.
  ASSERT_EQ(ref.targets.size(), 22u);
  EXPECT_EQ(ref.facts.size(), 4u);

  const ReferenceTarget& hybrid = ref.targets[2];
  EXPECT_EQ(hybrid.kind, TargetKind::reduction_vs_dense);
  EXPECT_FALSE(hybrid.run.reuse);
  EXPECT_FALSE(hybrid.run.batch_gathers);
  EXPECT_EQ(hybrid.baseline.dataflow, "dense");
  const ReferenceTarget& batching = ref.targets[4];
  EXPECT_EQ(batching.kind, TargetKind::reduction_vs_previous);
  EXPECT_TRUE(batching.run.batch_gathers);
  EXPECT_TRUE(batching.baseline.reuse);          // the reuse step before it
  EXPECT_FALSE(batching.baseline.batch_gathers);
  EXPECT_DOUBLE_EQ(batching.tolerance(), 0.015);

  const ReferenceTarget& count = ref.targets[10];
  EXPECT_EQ(count.id, "profile6.gpsimd_instructions[reuse_and_batching]");
  EXPECT_EQ(count.kind, TargetKind::instructions);
  EXPECT_EQ(count.engine, "gpsimd");
  EXPECT_EQ(count.run.layers, 6);
  EXPECT_EQ(count.run.d, 4);
  EXPECT_EQ(count.run.r, 256);
  EXPECT_DOUBLE_EQ(count.value, 97);

  // Values keyed by a named representation set (d, r); a pair "a_vs_b" sets the run and its baseline.
  const ReferenceTarget& by_rate = ref.targets[15];
  EXPECT_EQ(by_rate.id, "profile6.gpsimd_active_us_by_rate[d2_r0]");
  EXPECT_EQ(by_rate.kind, TargetKind::active_us);
  EXPECT_EQ(by_rate.run.d, 2);
  EXPECT_EQ(by_rate.run.r, 0);
  EXPECT_TRUE(by_rate.run.batch_gathers);
  const ReferenceTarget& change = ref.targets[16];
  EXPECT_EQ(change.id, "profile6.hbm_read_change[d8_r384_vs_d4_r256]");
  EXPECT_EQ(change.kind, TargetKind::hbm_read_change);
  EXPECT_EQ(change.run.d, 8);
  EXPECT_EQ(change.baseline.d, 4);
  // Per decode step of the full model (configs/reference/published.yaml says why): no layer window.
  EXPECT_EQ(change.run.layers, 0);
  EXPECT_EQ(change.baseline.layers, 0);
  EXPECT_DOUBLE_EQ(change.tolerance(), 0.10);
  // The six-layer model's whole-step TPOTs, after the step-time ratio (20 and 21 follow 19).
  const ReferenceTarget& six = ref.targets[19];
  EXPECT_EQ(six.id, "profile6.tpot_ms[d8_r384]");
  EXPECT_EQ(six.kind, TargetKind::tpot_ms);
  EXPECT_EQ(six.run.layers, 6);
  EXPECT_EQ(six.run.d, 8);
  EXPECT_DOUBLE_EQ(six.value, 1.19);
  EXPECT_DOUBLE_EQ(six.tolerance(), 0.05);
  const ReferenceTarget& share = ref.targets[21];
  EXPECT_EQ(share.kind, TargetKind::attention_share);
  EXPECT_TRUE(share.absolute_tolerance());
  EXPECT_DOUBLE_EQ(share.tolerance(), 0.02);

  // The critical-engine fact has two checks, each on its own full-model run.
  const ReferenceFact& critical = ref.facts[2];
  ASSERT_EQ(critical.checks.size(), 2u);
  EXPECT_EQ(critical.checks[1].metric, FactMetric::critical_engine);
  EXPECT_EQ(critical.checks[1].run.d, 2);
  EXPECT_EQ(critical.checks[1].equals, "gpsimd");

  // Distinct runs: dense; 3 full-model cardan (8, 384) variants, (2, 0) and (4, 256) (the last two for the HBM-read
  // changes and the critical engine); six-layer (4, 256) in 3 variants, (8, 384) and (2, 0) = 11.
  EXPECT_EQ(ref.runs().size(), 11u);
}

}  // namespace
}  // namespace stasim
