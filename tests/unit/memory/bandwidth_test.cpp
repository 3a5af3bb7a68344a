// Max-min fair sharing and the DMA transfer arithmetic, without the kernel.
#include <gtest/gtest.h>

#include "memory/bandwidth_sharing.hpp"
#include "memory/dma_cost.hpp"

namespace stasim {
namespace {

Flow flow(std::initializer_list<std::uint32_t> rs) {
  Flow f;
  for (auto r : rs) f.use(r);
  return f;
}

TEST(BandwidthSharing, EqualSplitOfOneResource) {
  auto r = max_min_fair_share({528}, {flow({0}), flow({0}), flow({0})});
  for (double x : r) EXPECT_DOUBLE_EQ(x, 176);  // 528 / 3
}

TEST(BandwidthSharing, WaterFillingAcrossCoresAndHbm) {
  // Resources: core0 DMA 528, core1 DMA 528, HBM 700. Flows: two HBM loads on core 0, one on core 1, and one
  // SBUF-to-SBUF copy on core 1 (no HBM).
  // HBM offers 700 / 3 = 233.3 to its three flows; core 0 offers 264 each, core 1 264 each: HBM is the
  // bottleneck, so the three HBM flows get 233.33. Core 1 then has 528 - 233.33 = 294.67 left for the copy.
  auto r = max_min_fair_share({528, 528, 700}, {flow({0, 2}), flow({0, 2}), flow({1, 2}), flow({1})});
  EXPECT_NEAR(r[0], 700.0 / 3, 1e-9);
  EXPECT_NEAR(r[1], 700.0 / 3, 1e-9);
  EXPECT_NEAR(r[2], 700.0 / 3, 1e-9);
  EXPECT_NEAR(r[3], 528 - 700.0 / 3, 1e-9);
}

TEST(BandwidthSharing, UnusedCapacityGoesToTheUnconstrainedFlows) {
  // Core 0 (100) carries one flow; HBM (1000) is shared by it and a flow on core 1 (528): the first is held
  // at 100 by its core, so the second gets min(528, 1000 - 100) = 528.
  auto r = max_min_fair_share({100, 528, 1000}, {flow({0, 2}), flow({1, 2})});
  EXPECT_DOUBLE_EQ(r[0], 100);
  EXPECT_DOUBLE_EQ(r[1], 528);
}

TEST(DmaCost, KneeScalesSmallPerPartitionTransfers) {
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(1048576, 128, 2048), 1048576);  // 8192 B per partition
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(131072, 128, 2048), 262144);    // 1024 B/p: x 2048 / 1024
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(256, 128, 2048), 262144);       // 2 B/p: x 2048 / 2
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(2048, 1, 2048), 2048);          // exactly at the knee
  // A column slice: 8192 B per partition arriving in runs of 192 B: x 2048 / 192.
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(1048576, 128, 2048, 192), 1048576.0 * 2048 / 192);
  // Runs longer than the partition's bytes change nothing.
  EXPECT_DOUBLE_EQ(cost::dma_effective_bytes(1048576, 128, 2048, 65536), 1048576);
}

}  // namespace
}  // namespace stasim
