// TensorE's dI/dt throttle through the SystemC kernel (engines/tensor_throttle.hpp, trn3: start fraction 0.5,
// 3 us ramp and window, 50 % threshold). A matmul of 512 moving columns with a new stationary costs
// max(min(64, 128), 512) + 32 = 544 cycles / 2.4 GHz = 226667 ps at full rate. The engines' pipeline latencies
// are set to 0 here (trn3_without_latency) so that an op ends with its throttled interval.
#include <gmock/gmock.h>

#include <string>

#include "schedule_fixture.hpp"

namespace stasim::test {
namespace {

// One matmul (k 128, m 128, `n` moving columns) into a PSUM bank and the copy that drains it.
std::string one_matmul(int n) {
  const std::string cols = std::to_string(n);
  return "ops:\n"
         "  - {name: mm, engine: tensor, kind: matmul, k: 128, m: 128, n: " + cols + ", psum_bank: 0}\n"
         "  - {name: cp, engine: vector, kind: tensor_copy, free: " + cols +
         ", input_in_psum: true, deps: [mm], releases_psum_bank: 0}\n";
}
const std::string kOneMatmul = one_matmul(512);

TEST(TensorThrottleModule, AnIsolatedMatmulRunsAtHalfRate) {
  auto run = simulate_yaml(kOneMatmul, trn3_without_latency());
  // From idle: 226667 / 0.5 = 453334 ps.
  EXPECT_EQ(run->end("mm"), 453334);
  // Without the throttle the same matmul takes 226667 ps.
  auto plain = simulate_yaml(kOneMatmul, trn3_without_latency({"core.engines.tensor.throttle_start_fraction=1"}));
  EXPECT_EQ(plain->end("mm"), 226667);
}

// tensor.throttle_stretches_floor = false (a what-if): from idle the throttle slows only the moving stream. A
// one-column matvec (k 128, m 128, n 1) costs max(min(64, 128), 1) + 32 = 96 cycles / 2.4 GHz = 40000 ps.
const std::string kMatvec = one_matmul(1);

TEST(TensorThrottleModule, WithoutStretchingTheFloorAMatvecRunsAtFullCostAndAWideMatmulStillSlows) {
  // Whole-instruction stretch (shipped): 40000 / 0.5 = 80000 ps.
  EXPECT_EQ(simulate_yaml(kMatvec, trn3_without_latency())->end("mm"), 80000);
  // Stream only: max(64, 1 / 0.5) / max(64, 1) = 1, so 40000 ps, as unthrottled.
  auto stream_only = simulate_yaml(kMatvec, trn3_without_latency({"core.engines.tensor.throttle_stretches_floor=false"}));
  EXPECT_EQ(stream_only->end("mm"), 40000);
  // 512 columns: max(64, 1024) / 512 = 2, the same 453334 ps as the whole-instruction stretch.
  auto wide = simulate_yaml(kOneMatmul, trn3_without_latency({"core.engines.tensor.throttle_stretches_floor=false"}));
  EXPECT_EQ(wide->end("mm"), 453334);
}

TEST(TensorThrottleModule, ABurstRampsUpAndLaterMatmulsRunFaster) {
  // 40 back-to-back matmuls on one bank-free chain (each its own bank group, drained by nobody: no PSUM ops).
  std::string yaml = "ops:\n";
  for (int i = 0; i < 40; ++i)
    yaml += "  - {name: mm" + std::to_string(i) + ", engine: tensor, kind: matmul, k: 128, m: 128, n: 512}\n";
  auto run = simulate_yaml(yaml, trn3_without_latency());
  // The first ones run at half rate (453334 ps): the window is under 50 % busy until 1.5 us of the last 3 us
  // are, i.e. through the 4th (end 1813336); then the ramp takes 3 us to full rate. The last ones run at full
  // rate, each loading its stationary under the one before (trn3's background LoadStationary): 512 cycles /
  // 2.4 GHz = 213334 ps.
  EXPECT_EQ(run->end("mm0") - run->start("mm0"), 453334);
  EXPECT_EQ(run->end("mm39") - run->start("mm39"), 213334);
  // In between, strictly faster than the start and slower than full.
  Picoseconds mid = run->end("mm6") - run->start("mm6");
  EXPECT_LT(mid, 453334);
  EXPECT_GT(mid, 226667);
}

}  // namespace
}  // namespace stasim
