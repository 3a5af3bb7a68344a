// TensorE's dI/dt throttle (engines/tensor_throttle.hpp) with trn3's values: start fraction 0.5, a 3 us ramp,
// re-engaged under 50 % busy over the last 3 us window. Times in ps.
#include <gtest/gtest.h>

#include "engines/tensor_throttle.hpp"

namespace stasim {
namespace {

TensorEngineConfig trn3_tensor() {
  TensorEngineConfig t;
  t.throttle_start_fraction = 0.5;
  t.throttle_ramp_ns = 3000;
  t.throttle_window_ns = 3000;
  t.throttle_threshold = 0.5;
  return t;
}

TEST(TensorThrottle, AnIdleEngineStartsAtHalfRate) {
  TensorThrottle t;
  t.reset(trn3_tensor());
  EXPECT_TRUE(t.enabled());
  EXPECT_DOUBLE_EQ(t.rate_at(0), 0.5);
  t.busy(0, 400000);
  // 10 us later the window [7, 10] us holds nothing: still 0.5.
  EXPECT_DOUBLE_EQ(t.rate_at(10000000), 0.5);
}

TEST(TensorThrottle, SustainedLoadRampsToFullOverThreeMicroseconds) {
  TensorThrottle t;
  t.reset(trn3_tensor());
  // Back-to-back 1 us instructions from 0: at 1 us the window [-2, 1] us holds 1 us busy = 33 % < 50 %: the ramp
  // (re)starts there, rate 0.5.
  EXPECT_DOUBLE_EQ(t.rate_at(0), 0.5);
  t.busy(0, 1000000);
  EXPECT_DOUBLE_EQ(t.rate_at(1000000), 0.5);
  t.busy(1000000, 2000000);
  // At 2 us: 2 of the last 3 us busy (67 %): the ramp runs from 1 us, 1/3 of the way: 0.5 + 0.5 / 3.
  EXPECT_DOUBLE_EQ(t.rate_at(2000000), 0.5 + 0.5 / 3);
  t.busy(2000000, 3000000);
  // At 4 us (3 us after the ramp started, window full): full rate.
  t.busy(3000000, 4000000);
  EXPECT_DOUBLE_EQ(t.rate_at(4000000), 1.0);
}

TEST(TensorThrottle, AGapReengagesTheLimit) {
  TensorThrottle t;
  t.reset(trn3_tensor());
  for (Picoseconds s = 0; s < 6000000; s += 1000000) {
    t.rate_at(s);
    t.busy(s, s + 1000000);
  }
  EXPECT_DOUBLE_EQ(t.rate_at(6000000), 1.0);
  // Idle from 6 to 8 us: the window [5, 8] us holds 1 us busy (33 %): back to half rate.
  EXPECT_DOUBLE_EQ(t.rate_at(8000000), 0.5);
}

TEST(TensorThrottle, AStartFractionOfOneTurnsItOff) {
  TensorEngineConfig c = trn3_tensor();
  c.throttle_start_fraction = 1;
  TensorThrottle t;
  t.reset(c);
  EXPECT_FALSE(t.enabled());
  EXPECT_DOUBLE_EQ(t.rate_at(0), 1.0);
}

}  // namespace
}  // namespace stasim
