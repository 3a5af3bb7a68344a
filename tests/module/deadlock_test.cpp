// Schedules that pass static validation (no cycle through dependencies and program order, every PSUM group
// released after its last op) but cannot complete: PSUM banks are a resource held across engines and cores, so
// a release that waits, through a dependency, for an op that waits for the bank deadlocks. The kernel stops
// with a DeadlockError that lists each stuck op, what it waits for, and the wait cycle.
#include <gmock/gmock.h>

#include "schedule_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

std::string deadlock_of(const std::string& yaml) {
  try {
    simulate_yaml(yaml, trn3_unthrottled());
  } catch (const DeadlockError& e) {
    return e.what();
  }
  return "(no deadlock)";
}

TEST(Deadlock, AReleaseWaitingForAnOpThatNeedsTheBank) {
  // a holds bank 2 until drain_a ends; drain_a also reads b's result, but b needs bank 2 first.
  std::string text = deadlock_of(R"(
ops:
  - {name: a, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: drain_a, engine: vector, duration_ns: 10, deps: [a, b], releases_psum_bank: 2}
  - {name: drain_b, engine: vector, duration_ns: 10, deps: [b], releases_psum_bank: 2}
)");
  EXPECT_THAT(text, HasSubstr("deadlock: 3 of 4 ops never ran"));
  EXPECT_THAT(text, HasSubstr("test.yaml:4: op 'b' (core 0 tensor): needs PSUM bank 2, held by group 'a' (from 'a') "
                              "until 'drain_a' releases it"));
  EXPECT_THAT(text, HasSubstr("test.yaml:5: op 'drain_a' (core 0 vector): waits for its dependency 'b'"));
  EXPECT_THAT(text, HasSubstr("test.yaml:6: op 'drain_b' (core 0 vector): queued behind 'drain_a' (and 1 unfinished dependency)"));
  EXPECT_THAT(text, HasSubstr("wait cycle: 'b' waits for 'drain_a' (PSUM bank), 'drain_a' waits for 'b' (dependency)"));
}

TEST(Deadlock, BankExhaustionOnTwoCoresWaitingForEachOther) {
  // Each core holds its bank 0 with group a and needs it again for b; each core's release of a waits for the
  // other core's b. Neither release can run: a cycle through both cores' tensor queues.
  std::string text = deadlock_of(R"(
ops:
  - {name: a0, engine: tensor, core: 0, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: b0, engine: tensor, core: 0, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: a1, engine: tensor, core: 1, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: b1, engine: tensor, core: 1, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: ra0, engine: vector, core: 0, duration_ns: 10, deps: [a0, b1], releases_psum_bank: 0}
  - {name: ra1, engine: vector, core: 1, duration_ns: 10, deps: [a1, b0], releases_psum_bank: 0}
  - {name: rb0, engine: vector, core: 0, duration_ns: 10, deps: [b0], releases_psum_bank: 0}
  - {name: rb1, engine: vector, core: 1, duration_ns: 10, deps: [b1], releases_psum_bank: 0}
)");
  EXPECT_THAT(text, HasSubstr("deadlock: 6 of 8 ops never ran"));
  EXPECT_THAT(text, HasSubstr("op 'b0' (core 0 tensor): needs PSUM bank 0, held by group 'a0' (from 'a0') until 'ra0'"));
  EXPECT_THAT(text, HasSubstr("op 'b1' (core 1 tensor): needs PSUM bank 0, held by group 'a1' (from 'a1') until 'ra1'"));
  EXPECT_THAT(text, HasSubstr("wait cycle: 'b0' waits for 'ra0' (PSUM bank), 'ra0' waits for 'b1' (dependency), "
                              "'b1' waits for 'ra1' (PSUM bank), 'ra1' waits for 'b0' (dependency)"));
}

TEST(Deadlock, TheSameScheduleOnSeparateBanksCompletes) {
  // The control: with b on bank 1 nothing waits for a bank and every op runs.
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 1}
  - {name: drain_a, engine: vector, duration_ns: 10, deps: [a, b], releases_psum_bank: 2}
  - {name: drain_b, engine: vector, duration_ns: 10, deps: [b], releases_psum_bank: 1}
)", trn3_without_latency({"core.engines.tensor.throttle_start_fraction=1"}));
  // Without pipeline latencies (they have their own tests), a result is written when its interval ends.
  // a: 512 + 32 (its LoadStationary from idle) = 544 cycles at 2.4 GHz = 226667 ps; b loads its stationary under a
  // (trn3's background LoadStationary, ARCH-v2): 512 cycles = 213334 ps more -> 440001; drain_a after the 50 ns
  // semaphore: 490001 + 10000 = 500001; drain_b follows in the vector queue: 510001.
  EXPECT_EQ(run->end("b"), 440001);
  EXPECT_EQ(run->end("drain_a"), 500001);
  EXPECT_EQ(run->end("drain_b"), 510001);
}

}  // namespace
}  // namespace stasim::test
