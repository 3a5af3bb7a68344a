// The critical-path walk and interval unions on hand-made timings (no kernel).
#include <gtest/gtest.h>

#include "sim/kernel/critical_path.hpp"
#include "sim/kernel/result_summary.hpp"

namespace stasim {
namespace {

// A fixed-duration op with a phase tag (the timings are written by hand in each test).
OpId add_tagged_op(ScheduleGraph& g, const char* name, Engine engine, const char* phase) {
  Op op;
  op.engine = engine;
  op.kind = OpKind::fixed;
  op.phase = g.phase_id(phase);
  return g.add_op(op, name);
}

TEST(IntervalUnion, MergesOverlapsAndTouchingIntervals) {
  std::vector<std::pair<Picoseconds, Picoseconds>> v = {{50, 70}, {0, 10}, {5, 20}, {20, 30}, {60, 65}};
  // [0, 30) and [50, 70): 30 + 20 = 50.
  EXPECT_EQ(union_length(v), 50);
}

TEST(IntervalUnion, IntersectionCoversTimeBothUnionsShare) {
  // ∪a = [0, 30) ∪ [50, 70), ∪b = [25, 60): shared [25, 30) and [50, 60) = 5 + 10 = 15.
  EXPECT_EQ(intersection_length({{0, 20}, {10, 30}, {50, 70}}, {{25, 40}, {40, 60}}), 15);
  EXPECT_EQ(intersection_length({{0, 10}}, {{10, 20}}), 0);  // touching is not overlapping
}

TEST(OverlapShare, ShareOfTheDownLoadsTimeDuringGateUpCompute) {
  ScheduleGraph g;
  auto add = [&g](const char* name, Engine e, const char* phase) { return add_tagged_op(g, name, e, phase); };
  OpId down1 = add("down1", Engine::dma, "down");
  OpId down2 = add("down2", Engine::dma, "down");
  OpId gather = add("gather", Engine::gpsimd, "gather");
  OpId lr = add("lr", Engine::tensor, "lr");
  OpId unrun = add("not_run", Engine::dma, "down");
  SimResult r;
  r.ops.assign(g.size(), OpTiming{});
  r.ops[down1] = {0, 400, kNoOp, BoundKind::start};
  r.ops[down2] = {300, 1000, kNoOp, BoundKind::start};  // down DMA busy [0, 1000): 1000 ps
  r.ops[gather] = {100, 500, kNoOp, BoundKind::start};
  r.ops[lr] = {450, 700, kNoOp, BoundKind::start};      // compute busy [100, 700): 600 ps, all inside
  (void)unrun;                                           // start = end = -1: never ran, not counted
  const auto phase_is = [&g](const char* name) { return [&g, name](const Op& op) { return g.phases()[op.phase] == name; }; };
  const auto compute = [&g](const Op& op) {
    return op.engine != Engine::dma && (g.phases()[op.phase] == "gather" || g.phases()[op.phase] == "lr");
  };
  // 600 of the 1000 ps of down DMA overlap compute: 0.6.
  EXPECT_DOUBLE_EQ(overlap_share(g, r, phase_is("down"), compute), 0.6);
  // Nothing in phase "attention" ran: share 0.
  EXPECT_DOUBLE_EQ(overlap_share(g, r, phase_is("attention"), compute), 0.0);
}

TEST(CriticalPath, FollowsWhatBoundEachStartAndCountsWaiting) {
  ScheduleGraph g;
  auto add = [&g](const char* name, Engine e, const char* phase) { return add_tagged_op(g, name, e, phase); };
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

TEST(CriticalPath, NamesTheDmaQueuesItRunsThrough) {
  ScheduleGraph g;
  auto dma = [&g](const char* name, std::uint8_t core, std::uint16_t queue) {
    Op op;
    op.engine = Engine::dma;
    op.kind = OpKind::fixed;
    op.core = core;
    op.queue = queue;
    return g.add_op(op, name);
  };
  OpId a = dma("a", 0, 15), b = dma("b", 1, 3), c = dma("c", 0, 15);
  OpId off = dma("off_path", 0, 2);
  std::vector<OpTiming> t(4);
  t[a] = {0, 300, kNoOp, BoundKind::start};
  t[b] = {300, 700, a, BoundKind::dep};
  t[c] = {700, 800, b, BoundKind::dep};
  t[off] = {0, 500, kNoOp, BoundKind::start};
  CriticalPath p = critical_path(g, t);
  // a and c on core 0's queue 15: 300 + 100 ps; b on core 1's queue 3: 400 ps; the queue off the path is absent.
  EXPECT_EQ(p.by_dma_queue_ps, (std::map<std::string, Picoseconds>{{"c0.dma15", 400}, {"c1.dma3", 400}}));
  EXPECT_EQ(p.by_engine_ps[int(Engine::dma)], 800);  // the queues' sum
}

}  // namespace
}  // namespace stasim
