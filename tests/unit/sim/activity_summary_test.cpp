// summarize_activity on hand-set timings (no kernel): an engine's active time per physical core and over the
// rank's cores is the union of its queues' op intervals, however those queues interleave in time. The DMA case
// has three queues on two cores whose intervals overlap, touch, start together and come out of queue order.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/config_reader.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/kernel/result_summary.hpp"

namespace stasim {
namespace {

constexpr const char* kSchedule = R"(
ops:
  - {name: q0a, engine: dma, queue: 0, bytes: 1000, src: hbm, dst: sbuf}
  - {name: q1a, engine: dma, queue: 1, bytes: 1000, src: hbm, dst: sbuf}
  - {name: q0b, engine: dma, queue: 0, bytes: 1000, src: hbm, dst: sbuf}
  - {name: c1a, engine: dma, core: 1, queue: 0, bytes: 1000, src: hbm, dst: sbuf}
  - {name: q1b, engine: dma, queue: 1, bytes: 1000, src: hbm, dst: sbuf}
  - {name: c1b, engine: dma, core: 1, queue: 0, bytes: 1000, src: hbm, dst: sbuf}
  - {name: v0, engine: vector, kind: tensor_copy, free: 64}
  - {name: v1, engine: vector, kind: tensor_copy, free: 64, core: 1}
)";

TEST(ActivitySummary, UnionsPerCoreAndOverTheRankForInterleavedQueues) {
  LoadedSchedule schedule = read_schedule(parse_yaml_text(kSchedule, "activity.yaml"), "activity.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml", {});
  ASSERT_EQ(hw.lnc, 2u);
  SimResult r;
  // Intervals in ps, [start, end), in op order.
  r.ops = {{100, 300, kNoOp, BoundKind::start},   // q0a   core 0 queue 0
           {50, 150, kNoOp, BoundKind::start},    // q1a   core 0 queue 1 (starts before q0a)
           {400, 500, kNoOp, BoundKind::start},   // q0b   core 0 queue 0
           {300, 350, kNoOp, BoundKind::start},   // c1a   core 1 (touches q0a's end)
           {400, 450, kNoOp, BoundKind::start},   // q1b   core 0 queue 1 (starts with q0b)
           {600, 700, kNoOp, BoundKind::start},   // c1b   core 1
           {0, 10, kNoOp, BoundKind::start},      // v0
           {5, 20, kNoOp, BoundKind::start}};     // v1
  summarize_activity(schedule.graph, hw, r);
  const int dma = static_cast<int>(Engine::dma), vector = static_cast<int>(Engine::vector);
  // Core 0: [50, 300) from q1a and q0a overlapping = 250, [400, 500) from q0b with q1b inside = 100: 350.
  EXPECT_EQ(r.per_core[0][dma].active_ps, 350);
  // Core 1: [300, 350) + [600, 700) = 50 + 100 = 150.
  EXPECT_EQ(r.per_core[1][dma].active_ps, 150);
  // Rank: [50, 350) (c1a continues where q0a ends) = 300, [400, 500) = 100, [600, 700) = 100: 500.
  EXPECT_EQ(r.engines[dma].active_ps, 500);
  EXPECT_EQ(r.dma_active_ps, 500);
  EXPECT_EQ(r.engines[dma].active_sum_ps, 350 + 150);
  // Vector: core 0 [0, 10) = 10, core 1 [5, 20) = 15, rank [0, 20) = 20, sum 25.
  EXPECT_EQ(r.per_core[0][vector].active_ps, 10);
  EXPECT_EQ(r.per_core[1][vector].active_ps, 15);
  EXPECT_EQ(r.engines[vector].active_ps, 20);
  EXPECT_EQ(r.engines[vector].active_sum_ps, 25);
  EXPECT_EQ(r.total_ps, 700);
  EXPECT_EQ(r.dma_transfers, 6u);
}

}  // namespace
}  // namespace stasim
