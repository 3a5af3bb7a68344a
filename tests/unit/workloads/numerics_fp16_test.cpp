#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "workloads/fp16.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

float f(double x) { return static_cast<float>(x); }

TEST(Fp16, KnownValues) {
  EXPECT_EQ(fp16_from_float(1.0f), 0x3C00);    // exponent 15 (bias), mantissa 0
  EXPECT_EQ(fp16_from_float(-2.0f), 0xC000);   // sign | exponent 16
  EXPECT_EQ(fp16_from_float(65504.0f), 0x7BFF);  // (2 - 2^-10) * 2^15: the largest finite value
  EXPECT_EQ(fp16_from_float(0.1f), 0x2E66);    // 0.1 = 1.6 * 2^-4: mantissa 0.6 * 1024 = 614.4 -> 614 = 0x266
  EXPECT_EQ(fp16_from_float(0.0f), 0x0000);
  EXPECT_EQ(fp16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(fp16_from_float(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(fp16_from_float(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(fp16_from_float(std::ldexp(1023.0f, -24)), 0x03FF);  // largest subnormal
}

TEST(Fp16, TiesRoundToEven) {
  // 1 + 2^-11 lies halfway between 1 (0x3C00, even) and 1 + 2^-10 (0x3C01): goes to the even one.
  EXPECT_EQ(fp16_from_float(f(1.0 + std::ldexp(1.0, -11))), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 0x3C01 and 0x3C02: goes to 0x3C02.
  EXPECT_EQ(fp16_from_float(f(1.0 + 3 * std::ldexp(1.0, -11))), 0x3C02);
  // Just above the halfway point rounds up.
  EXPECT_EQ(fp16_from_float(f(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -20))), 0x3C01);
  // Subnormal ties: 2^-25 is half of the smallest subnormal -> 0; 3 * 2^-25 = 1.5 units -> 2 units.
  EXPECT_EQ(fp16_from_float(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(fp16_from_float(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(fp16_from_float(std::ldexp(1.5f, -25)), 0x0001);  // 0.75 units: above half -> 1 unit
}

TEST(Fp16, OverflowAndSpecials) {
  // 65520 = 65504 + 16 is halfway to 2^16; 0x7BFF is odd, so the tie goes up to infinity.
  EXPECT_EQ(fp16_from_float(65519.0f), 0x7BFF);
  EXPECT_EQ(fp16_from_float(65520.0f), 0x7C00);
  EXPECT_EQ(fp16_from_float(1e6f), 0x7C00);
  EXPECT_EQ(fp16_from_float(-1e6f), 0xFC00);
  EXPECT_EQ(fp16_from_float(std::numeric_limits<float>::infinity()), 0x7C00);
  std::uint16_t nan = fp16_from_float(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  // 2^-14 - 2^-26 = 1023.75 units of 2^-24: rounds up into the smallest normal.
  EXPECT_EQ(fp16_from_float(f(std::ldexp(1.0, -14) - std::ldexp(1.0, -26))), 0x0400);
  EXPECT_EQ(fp16_from_float(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Fp16, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0) continue;  // NaN payloads are not preserved exactly
    ASSERT_EQ(fp16_from_float(float_from_fp16(static_cast<std::uint16_t>(h))), h) << std::hex << h;
  }
  EXPECT_EQ(float_from_fp16(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float_from_fp16(0x7BFF), 65504.0f);
}

// Brute-force reference: the nearest binary16 value by comparing distances in double, ties to the even pattern.
TEST(Fp16, MatchesNearestEvenOnRandomFloats) {
  SeededRandom random(42);
  for (int i = 0; i < 200000; ++i) {
    // Exponents spread over the binary16 range and a little beyond (2^-27 .. 2^17).
    const float x = static_cast<float>(std::ldexp(random.unit() * 2 - 1, static_cast<int>(random.below(45)) - 27));
    const std::uint16_t got = fp16_from_float(x);
    const double ax = std::fabs(static_cast<double>(x));
    // Largest finite pattern whose value is <= |x| (binary search: values grow with the pattern), then the
    // nearer of it and the next one.
    std::uint32_t lo = 0, hi = 0x7BFF;
    while (lo < hi) {
      std::uint32_t mid = (lo + hi + 1) / 2;
      if (static_cast<double>(float_from_fp16(static_cast<std::uint16_t>(mid))) <= ax) lo = mid;
      else hi = mid - 1;
    }
    std::uint16_t best = static_cast<std::uint16_t>(lo);
    if (lo < 0x7BFF) {
      const double below = ax - float_from_fp16(best);
      const double above = float_from_fp16(static_cast<std::uint16_t>(lo + 1)) - ax;
      if (above < below || (above == below && (lo & 1) == 1)) best = static_cast<std::uint16_t>(lo + 1);
    }
    // Beyond 65504 + 16 the value overflows; the loop above never reaches infinity.
    if (ax >= 65520.0) best = 0x7C00;
    if (x < 0 || (x == 0 && std::signbit(x))) best |= 0x8000;
    ASSERT_EQ(got, best) << "x = " << x;
  }
}

}  // namespace
}  // namespace stasim
