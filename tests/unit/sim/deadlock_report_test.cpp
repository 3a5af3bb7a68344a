// The stuck-op report of a run that ended with ops not executed, on hand-made graphs and run-state snapshots
// (no kernel): what each stuck op waits for, the cap on the listing, and the wait cycle.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/kernel/deadlock_report.hpp"

namespace stasim {
namespace {

using testing::HasSubstr;
using testing::Not;

Op tensor_op() {
  Op o;
  o.engine = Engine::tensor;
  o.kind = OpKind::fixed;
  o.duration_ps = 1000;
  return o;
}

// Two accumulation groups on bank 0 interleaved in the tensor queue: mm1 (group g1), mm2 (group g2), then r1
// releasing g1 and r2 releasing g2. mm1 ran and holds the bank; mm2 waits for r1, which is queued behind mm2.
struct InterleavedGroups {
  ScheduleGraph g;
  OpId mm1, mm2, r1, r2;
  std::uint32_t g1, g2;

  InterleavedGroups() {
    mm1 = g.add_op(tensor_op(), "mm1");
    mm2 = g.add_op(tensor_op(), "mm2");
    Op release = tensor_op();
    release.releases_psum_bank = 0;
    r1 = g.add_op(release, "r1");
    r2 = g.add_op(release, "r2");
    g1 = g.new_psum_group(0, 0, "g1");
    g2 = g.new_psum_group(0, 0, "g2");
    g.add_to_psum_group(mm1, g1);
    g.add_to_psum_group(mm2, g2);
    g.set_release(g1, r1);
    g.set_release(g2, r2);
    g.add_dep(mm1, r1);
    g.add_dep(mm2, r2);
  }

  StuckSnapshot snapshot() const {
    StuckSnapshot s;
    s.finished = {1, 0, 0, 0};
    s.queue_head = {mm2};  // one queue: core 0 tensor
    s.psum_banks = 8;
    s.psum_holder.assign(8, StuckSnapshot::kNoGroup);
    s.psum_holder[0] = g1;
    return s;
  }
};

TEST(DeadlockReport, NamesWhatEachStuckOpWaitsFor) {
  InterleavedGroups f;
  DeadlockReport report(f.g, f.snapshot());
  ASSERT_EQ(report.stuck().size(), 3u);
  // The queue head first, then the others by id.
  EXPECT_EQ(report.stuck()[0].op, f.mm2);
  EXPECT_EQ(report.stuck()[0].kind, WaitKind::psum);
  EXPECT_EQ(report.stuck()[0].on, f.r1);
  EXPECT_EQ(report.stuck()[0].psum_group, f.g1);
  EXPECT_EQ(report.stuck()[1].op, f.r1);
  EXPECT_EQ(report.stuck()[1].kind, WaitKind::queue);
  EXPECT_EQ(report.stuck()[1].on, f.mm2);
  EXPECT_EQ(report.stuck()[1].unfinished_deps, 0u);  // its dependency mm1 finished
  EXPECT_EQ(report.stuck()[2].op, f.r2);
  EXPECT_EQ(report.stuck()[2].kind, WaitKind::queue);
  EXPECT_EQ(report.stuck()[2].unfinished_deps, 1u);  // mm2
  EXPECT_EQ(report.cycle(), (std::vector<OpId>{f.mm2, f.r1}));

  EXPECT_EQ(report.text(),
            "deadlock: 3 of 4 ops never ran; the simulation ran out of events with them waiting:\n"
            "  op 'mm2' (core 0 tensor): needs PSUM bank 0, held by group 'g1' (from 'mm1') until 'r1' releases it\n"
            "  op 'r1' (core 0 tensor): queued behind 'mm2'\n"
            "  op 'r2' (core 0 tensor): queued behind 'mm2' (and 1 unfinished dependency)\n"
            "wait cycle: 'mm2' waits for 'r1' (PSUM bank), 'r1' waits for 'mm2' (queue order)");
}

TEST(DeadlockReport, UsesTheCallersOpNames) {
  InterleavedGroups f;
  std::string text = DeadlockReport(f.g, f.snapshot()).text([&f](OpId id) {
    return "s.yaml:" + std::to_string(id + 2) + ": op '" + f.g.name(id) + "'";
  });
  EXPECT_THAT(text, HasSubstr("\n  s.yaml:3: op 'mm2' (core 0 tensor): needs PSUM bank 0"));
}

// A release on another engine that depends on an op stuck behind the bank: the cycle runs through a dependency.
TEST(DeadlockReport, FollowsDependenciesAcrossEngines) {
  ScheduleGraph g;
  OpId a = g.add_op(tensor_op(), "a");
  OpId b = g.add_op(tensor_op(), "b");
  Op drain;
  drain.engine = Engine::vector;
  drain.kind = OpKind::fixed;
  drain.duration_ps = 1000;
  drain.releases_psum_bank = 2;
  OpId d = g.add_op(drain, "drain_a");
  std::uint32_t ga = g.new_psum_group(0, 2, "a");
  std::uint32_t gb = g.new_psum_group(0, 2, "b");
  g.add_to_psum_group(a, ga);
  g.add_to_psum_group(b, gb);
  g.set_release(ga, d);
  g.add_dep(a, d);
  g.add_dep(b, d);
  StuckSnapshot s;
  s.finished = {1, 0, 0};
  s.queue_head = {b, d};  // tensor, vector
  s.psum_banks = 8;
  s.psum_holder.assign(8, StuckSnapshot::kNoGroup);
  s.psum_holder[2] = ga;
  DeadlockReport report(g, s);
  EXPECT_EQ(report.cycle(), (std::vector<OpId>{b, d}));
  std::string text = report.text();
  EXPECT_THAT(text, HasSubstr("op 'drain_a' (core 0 vector): waits for its dependency 'b'\n"));
  EXPECT_THAT(text, HasSubstr("wait cycle: 'b' waits for 'drain_a' (PSUM bank), 'drain_a' waits for 'b' (dependency)"));
}

TEST(DeadlockReport, ListsAtMostTheCapAndCountsTheRest) {
  // 30 vector ops, the first waiting on the last (a cycle through program order): 30 stuck ops, 20 listed.
  ScheduleGraph g;
  std::vector<OpId> ops;
  for (int i = 0; i < 30; ++i) {
    Op o;
    o.engine = Engine::vector;
    o.duration_ps = 1000;
    ops.push_back(g.add_op(o, "v" + std::to_string(i)));
  }
  g.add_dep(ops.back(), ops.front());
  StuckSnapshot s;
  s.finished.assign(30, 0);
  s.queue_head = {ops.front()};
  s.psum_banks = 8;
  s.psum_holder.assign(8, StuckSnapshot::kNoGroup);
  DeadlockReport report(g, s);
  EXPECT_EQ(report.stuck().size(), 30u);
  std::string text = report.text();
  EXPECT_THAT(text, HasSubstr("deadlock: 30 of 30 ops never ran"));
  EXPECT_THAT(text, HasSubstr("op 'v0' (core 0 vector): waits for its dependency 'v29'\n"));
  EXPECT_THAT(text, HasSubstr("op 'v19' (core 0 vector): queued behind 'v0'\n  ... and 10 more\n"));
  EXPECT_THAT(text, Not(HasSubstr("op 'v20'")));
  EXPECT_EQ(report.cycle(), (std::vector<OpId>{ops.front(), ops.back()}));
}

TEST(DeadlockReport, AReadyHeadThatNeverIssuedIsASimulatorBug) {
  ScheduleGraph g;
  OpId a = g.add_op(tensor_op(), "a");
  StuckSnapshot s;
  s.finished = {0};
  s.queue_head = {a};
  s.psum_banks = 8;
  s.psum_holder.assign(8, StuckSnapshot::kNoGroup);
  DeadlockReport report(g, s);
  EXPECT_TRUE(report.cycle().empty());
  EXPECT_THAT(report.text(), HasSubstr("op 'a' (core 0 tensor): ready but never issued (a simulator bug)"));
}

}  // namespace
}  // namespace stasim
