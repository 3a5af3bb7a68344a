// The DMA queue's issue stage and places in flight (memory/dma_queue_model.hpp), without the kernel.
#include <gtest/gtest.h>

#include <limits>

#include "memory/dma_queue_model.hpp"

namespace stasim {
namespace {

constexpr Picoseconds kNever = std::numeric_limits<Picoseconds>::max();

TEST(DmaQueueModel, ADispatchHoldsTheIssueStageForItsIssueTime) {
  DmaQueueModel m;
  m.reset(2, 2);
  EXPECT_EQ(m.ready_ps(0), 0);
  // Dispatched at 100 with a 900 ps issue: its bytes may move from 1000, and the queue's next dispatch too.
  EXPECT_EQ(m.dispatch(0, 7, 100, 900), 1000);
  EXPECT_EQ(m.ready_ps(0), 1000);
  EXPECT_EQ(m.holder(0), 7);
  // The other queue is untouched.
  EXPECT_EQ(m.ready_ps(1), 0);
  EXPECT_EQ(m.holder(1), kNoOp);
}

TEST(DmaQueueModel, DepthTwoTakesASecondTransferThenWaitsForAFinish) {
  DmaQueueModel m;
  m.reset(1, 2);
  m.dispatch(0, 1, 0, 900);     // issue 0..900
  m.dispatch(0, 2, 900, 900);   // issue 900..1800: two in flight
  EXPECT_EQ(m.ready_ps(0), kNever);  // full: only a finish frees a place
  EXPECT_EQ(m.holder(0), 2);
  m.finished(0, 1, 2500);        // first's bytes done at 2500: a place, the issue stage free since 1800
  EXPECT_EQ(m.ready_ps(0), 1800);
  EXPECT_EQ(m.holder(0), 1);     // the queue waited for that finish, not for the issue stage
}

TEST(DmaQueueModel, DepthOneWaitsForEachTransferToFinish) {
  DmaQueueModel m;
  m.reset(1, 1);
  m.dispatch(0, 1, 0, 900);
  EXPECT_EQ(m.ready_ps(0), kNever);
  m.finished(0, 1, 3000);
  EXPECT_EQ(m.ready_ps(0), 900);  // the issue stage was free long before; the finish at 3000 is what freed it
  EXPECT_EQ(m.holder(0), 1);
  // A zero depth is taken as one.
  m.reset(1, 0);
  m.dispatch(0, 3, 0, 10);
  EXPECT_EQ(m.ready_ps(0), kNever);
}

}  // namespace
}  // namespace stasim
