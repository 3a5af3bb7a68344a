// The critical-path walk and interval unions on hand-made timings (no kernel).
#include <gtest/gtest.h>

#include "sim/critical_path.hpp"
#include "sim/result_summary.hpp"

namespace stasim {
namespace {

TEST(IntervalUnion, MergesOverlapsAndTouchingIntervals) {
  std::vector<std::pair<Picoseconds, Picoseconds>> v = {{50, 70}, {0, 10}, {5, 20}, {20, 30}, {60, 65}};
  // [0, 30) and [50, 70): 30 + 20 = 50.
  EXPECT_EQ(union_length(v), 50);
}

TEST(CriticalPath, FollowsWhatBoundEachStartAndCountsWaiting) {
  ScheduleGraph g;
  auto add = [&g](const char* name, Engine e, const char* phase) {
    Op op;
    op.name = name;
    op.engine = e;
    op.kind = OpKind::fixed;
    op.phase = g.phase_id(phase);
    return g.add_op(op);
  };
  OpId load = add("load", Engine::dma, "gather");
  OpId mm = add("mm", Engine::tensor, "lr");
  OpId side = add("side", Engine::vector, "act");
  OpId act = add("act", Engine::scalar, "act");
  std::vector<OpTiming> t(4);
  t[load] = {0, 1000, kNoOp, BoundKind::start};
  t[mm] = {1050, 1300, load, BoundKind::dep};
  t[side] = {0, 900, kNoOp, BoundKind::start};
  t[act] = {1350, 1600, mm, BoundKind::dep};
  CriticalPath p = critical_path(g, t);
  EXPECT_EQ(p.total_ps, 1600);
  EXPECT_EQ(p.ops, (std::vector<OpId>{load, mm, act}));
  EXPECT_EQ(p.by_engine_ps[int(Engine::dma)], 1000);
  EXPECT_EQ(p.by_engine_ps[int(Engine::tensor)], 250);
  EXPECT_EQ(p.by_engine_ps[int(Engine::scalar)], 250);
  EXPECT_EQ(p.by_engine_ps[int(Engine::vector)], 0);
  EXPECT_EQ(p.by_phase_ps["gather"], 1000);
  EXPECT_EQ(p.by_phase_ps["act"], 250);
  EXPECT_EQ(p.wait_ps, 1600 - 1000 - 250 - 250);  // two 50 ps semaphore gaps
}

}  // namespace
}  // namespace stasim
