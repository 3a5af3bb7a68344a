// ActivityMeter on hand-fed events in time order (as the kernel feeds them): an engine's active time per
// physical core and over the cores is the union of its ops' intervals. The intervals are those of
// activity_summary_test.cpp (three DMA queues on two cores that overlap, touch and start together), so the
// expected lengths are the same as the merge's there.
#include <gtest/gtest.h>

#include "sim/run/activity_meter.hpp"

namespace stasim {
namespace {

constexpr int kDma = static_cast<int>(Engine::dma);

// Feeds q0a [100, 300), q1a [50, 150), q0b [400, 500), q1b [400, 450) on core 0 and c1a [300, 350),
// c1b [600, 700) on core 1; at 300, where c1a starts as q0a ends, `finish_first` picks the order of the two.
std::vector<Picoseconds> measure(bool finish_first) {
  ActivityMeter m;
  m.reset(2);
  m.started(0, Engine::dma, 50);    // q1a
  m.started(0, Engine::dma, 100);   // q0a
  m.finished(0, Engine::dma, 150);  // q1a
  if (finish_first) m.finished(0, Engine::dma, 300);  // q0a
  m.started(1, Engine::dma, 300);   // c1a
  if (!finish_first) m.finished(0, Engine::dma, 300);  // q0a
  m.finished(1, Engine::dma, 350);  // c1a
  m.started(0, Engine::dma, 400);   // q0b
  m.started(0, Engine::dma, 400);   // q1b
  m.finished(0, Engine::dma, 450);  // q1b
  m.finished(0, Engine::dma, 500);  // q0b
  m.started(1, Engine::dma, 600);   // c1b
  m.finished(1, Engine::dma, 700);  // c1b
  m.started(1, Engine::vector, 5);  // a zero-length op counts nothing
  m.finished(1, Engine::vector, 5);
  return m.active_ps();
}

TEST(ActivityMeter, UnionsPerCoreAndOverTheCoresWhateverTheOrderOfTouchingEvents) {
  for (bool finish_first : {false, true}) {
    std::vector<Picoseconds> a = measure(finish_first);
    ASSERT_EQ(a.size(), 3u * kEngineCount);  // cores 0 and 1, then all cores
    // Core 0: [50, 300) from q1a and q0a overlapping = 250, [400, 500) with q1b inside = 100: 350.
    EXPECT_EQ(a[0 * kEngineCount + kDma], 350);
    // Core 1: [300, 350) + [600, 700) = 50 + 100 = 150.
    EXPECT_EQ(a[1 * kEngineCount + kDma], 150);
    // Over the cores: [50, 350) (c1a continues where q0a ends) = 300, [400, 500) = 100, [600, 700) = 100: 500.
    EXPECT_EQ(a[2 * kEngineCount + kDma], 500);
    EXPECT_EQ(a[1 * kEngineCount + static_cast<int>(Engine::vector)], 0);
    EXPECT_EQ(a[2 * kEngineCount + static_cast<int>(Engine::tensor)], 0);
  }
}

// An engine tells an op's end when it dispatches it, before later starts: vector [0, 100) told at 0, [60, 150)
// told at 60, [200, 250) told at 200; a DMA [120, 180) tells its end when it happens.
TEST(ActivityMeter, EndsToldAheadOfLaterStartsCountTheSameUnion) {
  ActivityMeter m;
  m.reset(1);
  m.started(0, Engine::vector, 0);
  m.finished(0, Engine::vector, 100);  // told at its dispatch (time 0)
  m.started(0, Engine::vector, 60);    // inside [0, 100): the same run
  m.finished(0, Engine::vector, 150);
  m.started(0, Engine::dma, 120);
  m.finished(0, Engine::dma, 180);     // told when it happens
  m.started(0, Engine::vector, 200);   // after the gap [150, 200)
  m.finished(0, Engine::vector, 250);
  std::vector<Picoseconds> a = m.active_ps();
  // Vector: [0, 150) + [200, 250) = 150 + 50 = 200 on core 0 and over the one core; DMA [120, 180) = 60.
  EXPECT_EQ(a[static_cast<int>(Engine::vector)], 200);
  EXPECT_EQ(a[kEngineCount + static_cast<int>(Engine::vector)], 200);
  EXPECT_EQ(a[kDma], 60);
}

TEST(ActivityMeter, ResetStartsAFreshRun) {
  ActivityMeter m;
  m.reset(1);
  m.started(0, Engine::tensor, 0);
  m.finished(0, Engine::tensor, 40);
  m.reset(1);
  m.started(0, Engine::tensor, 100);
  m.finished(0, Engine::tensor, 110);
  std::vector<Picoseconds> a = m.active_ps();
  // Only the second run's [100, 110) = 10, on core 0 and over the one core.
  EXPECT_EQ(a[static_cast<int>(Engine::tensor)], 10);
  EXPECT_EQ(a[kEngineCount + static_cast<int>(Engine::tensor)], 10);
}

}  // namespace
}  // namespace stasim
