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
  // 2 TPOT + 3 ablation steps + 4 profile metrics x 2 variants = 13 targets; 2 facts.
  ASSERT_EQ(ref.targets.size(), 13u);
  EXPECT_EQ(ref.facts.size(), 2u);

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

  // Distinct runs: dense, 3 full-model cardan variants, 3 six-layer variants.
  EXPECT_EQ(ref.runs().size(), 7u);
}

}  // namespace
}  // namespace stasim
