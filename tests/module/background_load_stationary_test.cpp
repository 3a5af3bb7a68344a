// LoadStationary in the background of the instruction before it (core.engines.tensor.background_load_stationary,
// engines/engine_module.cpp). On trn3 without the dI/dt throttle a matmul of one moving column with a new
// stationary costs max(min(64, 128), 1) + 32 = 96 cycles / 2.4 GHz = 40000 ps, of which the load is
// 32 / 2.4 = 13333 ps; without the load 64 / 2.4 = 26667 ps. The pipeline latency is 0 here (its own test is in
// engine_timing_test.cpp), so an op ends when its interval does.
#include <gmock/gmock.h>

#include "schedule_fixture.hpp"

namespace stasim::test {
namespace {

HardwareConfig background(bool on) {
  return trn3_without_latency({"core.engines.tensor.throttle_start_fraction=1",
               std::string("core.engines.tensor.background_load_stationary=") + (on ? "true" : "false")});
}

// Three skinny matmuls in one stream (each a new stationary), the third waiting for a vector op that ends late.
constexpr const char* kStream = R"(
ops:
  - {name: a, engine: tensor, kind: matmul, k: 128, m: 128, n: 1}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 1}
  - {name: slow, engine: vector, cycles: 1000}
  - {name: c, engine: tensor, kind: matmul, k: 128, m: 128, n: 1, deps: [slow]}
)";

TEST(BackgroundLoadStationary, AMatmulStraightAfterAnotherLoadsItsStationaryUnderIt) {
  auto run = simulate_yaml(kStream, background(true));
  // a starts the run: nothing before it to hide under, the whole 40000 ps.
  EXPECT_EQ(run->start("a"), 0);
  EXPECT_EQ(run->end("a"), 40000);
  // b is ready from the start and follows a without a gap: its 13333-ps load fits under a's 40000 ps, so it
  // takes 40000 - 13333 = 26667 ps (the 64-cycle issue alone).
  EXPECT_EQ(run->end("b") - run->start("b"), 26667);
  // c waits for `slow` (1000 cycles / 1.2 GHz = 833333 ps, then the semaphore hop): the engine idled, so it pays
  // the whole load.
  EXPECT_GT(run->start("c"), run->end("b"));
  EXPECT_EQ(run->end("c") - run->start("c"), 40000);
}

TEST(BackgroundLoadStationary, OffEveryNewStationaryPaysTheWholeLoad) {
  auto run = simulate_yaml(kStream, background(false));
  EXPECT_EQ(run->end("a") - run->start("a"), 40000);
  EXPECT_EQ(run->end("b") - run->start("b"), 40000);
  EXPECT_EQ(run->end("c") - run->start("c"), 40000);
}

TEST(BackgroundLoadStationary, OnlyThePartAfterTheOperandIsReadyHides) {
  // `wide` has 512 moving columns: 544 cycles / 2.4 GHz = 226667 ps. b's operand comes from `late`, which ends at
  // 171667 ps; with the 50-ns semaphore hop b is ready at 221667 ps, 5000 ps before `wide` ends: 5000 ps of its
  // 13333-ps load hide, and b takes 40000 - 5000 = 35000 ps.
  constexpr const char* kPartial = R"(
ops:
  - {name: wide, engine: tensor, kind: matmul, k: 128, m: 128, n: 512}
  - {name: late, engine: vector, duration_ns: 171.667}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 1, deps: [late]}
  - {name: same, engine: tensor, kind: matmul, k: 128, m: 128, n: 1, new_stationary: false}
)";
  auto run = simulate_yaml(kPartial, background(true));
  EXPECT_EQ(run->end("wide"), 226667);
  EXPECT_EQ(run->start("b"), 226667);
  EXPECT_EQ(run->end("b") - run->start("b"), 35000);
  // A matmul that keeps its stationary has no load to hide: 64 cycles = 26667 ps either way.
  EXPECT_EQ(run->end("same") - run->start("same"), 26667);
}

}  // namespace
}  // namespace stasim
