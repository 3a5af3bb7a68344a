// Max-min fair sharing and the DMA transfer arithmetic, without the kernel.
#include <gtest/gtest.h>

#include "memory/bandwidth_sharing.hpp"
#include "memory/dma_cost.hpp"
#include "sim/core/dma_descriptors.hpp"

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

TEST(BandwidthSharing, AFlowAloneGetsItsNarrowestResourceOrItsCap) {
  // Resources: core 0 528, core 1 700, link 100. A flow on core 1 and the link gets min(700, 100) = 100; capped
  // at 50 it gets 50; capped at exactly 100, 100.
  std::vector<double> capacity{528, 700, 100};
  EXPECT_EQ(max_min_fair_share(capacity, {flow({1, 2})}), std::vector<double>{100});
  std::vector<Flow> capped{flow({1, 2})};
  capped[0].cap = 50;
  EXPECT_EQ(max_min_fair_share(capacity, capped), std::vector<double>{50});
  capped[0].cap = 100;
  EXPECT_EQ(max_min_fair_share(capacity, capped), std::vector<double>{100});
  // A resource listed twice is two users of it: 528 / 2 = 264.
  EXPECT_EQ(max_min_fair_share(capacity, {flow({0, 0})}), std::vector<double>{264});
}

TEST(BandwidthSharing, WeightsCountWhatAUnitOfRateTakesOfEachResource) {
  // One resource of 1.0 (a core's descriptor processing) and two flows taking 3 and 1 of it per unit of rate:
  // progressive filling raises both to r with 3r + r = 1: r = 0.25 each.
  std::vector<Flow> flows(2);
  flows[0].use(0, 3);
  flows[1].use(0, 1);
  auto r = max_min_fair_share({1.0}, flows);
  EXPECT_DOUBLE_EQ(r[0], 0.25);
  EXPECT_DOUBLE_EQ(r[1], 0.25);
  // Add a second resource of 0.2 that only flow 1 uses at weight 1: it binds flow 1 at 0.2 first (0.2 < 0.25),
  // and flow 0 takes what is left of the first resource: (1 - 0.2) / 3 = 0.26667.
  flows[1].use(1, 1);
  r = max_min_fair_share({1.0, 0.2}, flows);
  EXPECT_DOUBLE_EQ(r[1], 0.2);
  EXPECT_NEAR(r[0], 0.8 / 3, 1e-12);
  // A flow alone with weight 4 on a resource of 1: rate 1 / 4.
  std::vector<Flow> alone(1);
  alone[0].use(0, 4);
  EXPECT_DOUBLE_EQ(max_min_fair_share({1.0}, alone)[0], 0.25);
}

TEST(BandwidthSharing, ACappedFlowLeavesTheRestToTheOthers) {
  // Core 0 (528) carries a large flow and a small one capped at 8.258 (its descriptors' pace): the small one
  // takes its cap, the large one the other 519.742, not half of the core.
  std::vector<Flow> flows{flow({0}), flow({0})};
  flows[1].cap = 4096.0 / 496;
  auto r = max_min_fair_share({528}, flows);
  EXPECT_DOUBLE_EQ(r[1], 4096.0 / 496);
  EXPECT_DOUBLE_EQ(r[0], 528 - 4096.0 / 496);
  // A cap above the fair share changes nothing: 264 each.
  flows[1].cap = 300;
  r = max_min_fair_share({528}, flows);
  EXPECT_DOUBLE_EQ(r[0], 264);
  EXPECT_DOUBLE_EQ(r[1], 264);
  // Every flow capped below what the resources give: each its cap.
  flows[0].cap = 33;
  flows[1].cap = 66;
  r = max_min_fair_share({528}, flows);
  EXPECT_DOUBLE_EQ(r[0], 33);
  EXPECT_DOUBLE_EQ(r[1], 66);
}

Op transfer(std::uint64_t bytes, std::uint32_t partitions, std::uint32_t contiguous = 0) {
  Op op;
  op.engine = Engine::dma;
  op.kind = OpKind::transfer;
  op.src = Location::hbm;
  op.dst = Location::sbuf;
  op.bytes = bytes;
  op.partitions = partitions;
  op.contiguous_bytes = contiguous;
  return op;
}

HardwareConfig trn3() { return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"); }

TEST(DmaCost, DescriptorsArePartitionsTimesContiguousRuns) {
  EXPECT_EQ(descriptor_count(transfer(1048576, 128)), 128u);             // one 8 KiB run per partition
  EXPECT_EQ(descriptor_count(transfer(1048576, 128, 192)), 128u * 43u);  // 8192 B in 192-byte runs: ceil = 43
  EXPECT_EQ(descriptor_count(transfer(1048576, 128, 65536)), 128u);      // a run longer than the partition: one
  EXPECT_EQ(descriptor_count(transfer(4096, 128)), 128u);                // 32 B per partition, still one each
  EXPECT_EQ(descriptor_count(transfer(32768, 4)), 4u);
  EXPECT_EQ(descriptor_count(transfer(100, 3)), 3u);                     // 34 B per partition (rounded up)
}

TEST(DmaCost, PlanIssueDescriptorTimeAndEngines) {
  HardwareConfig hw = trn3();
  // 128 partitions: 16 engines of 8 partitions, 16 x 33 B/ns; the issue is trn3's 900 ns (trigger to first
  // byte); 128 descriptors x 2.58 ns of the core's descriptor processing = 330.24 ns.
  cost::DmaPlan p = cost::plan_dma(transfer(1048576, 128), hw);
  EXPECT_EQ(p.issue_ps, 900000);
  EXPECT_EQ(p.engines, 16u);
  EXPECT_EQ(p.descriptors, 128u);
  EXPECT_EQ(p.descriptor_ps, 330240);
  EXPECT_DOUBLE_EQ(p.max_bytes_per_ps, 0.528);
  // 4 partitions run on one engine (DMA's A[4, 4096] example): 4 x 2.58 ns, 33 B/ns.
  p = cost::plan_dma(transfer(32768, 4), hw);
  EXPECT_EQ(p.engines, 1u);
  EXPECT_EQ(p.descriptor_ps, 10320);
  EXPECT_DOUBLE_EQ(p.max_bytes_per_ps, 0.033);
  // 12 partitions: ceil(12 / 8) = 2 engines.
  EXPECT_EQ(cost::plan_dma(transfer(4096, 12), hw).engines, 2u);
  // 192-byte runs: 5504 descriptors x 2.58 ns = 14200.32 ns, seven times the 1986 ns its bytes need.
  EXPECT_EQ(cost::plan_dma(transfer(1048576, 128, 192), hw).descriptor_ps, 14200320);
  // Hardware DGE adds its 600 ns instruction to the issue: 900 + 600 = 1500 ns.
  Op h = transfer(4096, 128);
  h.dge = DgeMode::hwdge;
  EXPECT_EQ(cost::plan_dma(h, hw).issue_ps, 1500000);
  // A cross-core transfer (a sendrecv on the shared DMA) crosses the link twice, its core barrier's semaphore
  // and its data: 900 + 2 x 500 (trn3's link latency) = 1900 ns.
  Op peer = transfer(4096, 128);
  peer.src = Location::sbuf;
  peer.dst = Location::peer;
  peer.peer_core = 1;
  EXPECT_EQ(cost::plan_dma(peer, hw).issue_ps, 1900000);
  // DMA transpose (ARCH-v3): at most 90% of the engines' rate from HBM, 50% within SBUF.
  Op t = transfer(1048576, 128);
  t.dma_transpose = true;
  EXPECT_DOUBLE_EQ(cost::plan_dma(t, hw).max_bytes_per_ps, 0.528 * 0.9);
  t.src = Location::sbuf;
  t.dst = Location::sbuf;
  EXPECT_DOUBLE_EQ(cost::plan_dma(t, hw).max_bytes_per_ps, 0.528 * 0.5);
}

}  // namespace
}  // namespace stasim
