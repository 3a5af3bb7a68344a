// The MMA step model: exact products, alignment to the largest term with truncation, one round-toward-zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "workloads/fp16.hpp"
#include "workloads/seeded_random.hpp"
#include "workloads/tensor_core_mma.hpp"

namespace stasim {
namespace {

TEST(TensorCoreMma, SmallTermsAddAsOneFusedSumRoundedTowardZero) {
  // c = 1 and seven products 2^-12 * 2^-13 = 2^-25. Window: the largest term is 1 (2^0), so the LSB is
  // 2^-26 and each product is 2 units, kept exactly. Sum = 2^26 + 14 units: 27 bits, truncated to 24 bits
  // drops the low 3 bits (14 = 0b1110 -> 8): 2^26 + 8 units = 1 + 2^-23, one FP32 ulp above 1.
  const float a[7] = {0x1p-12f, 0x1p-12f, 0x1p-12f, 0x1p-12f, 0x1p-12f, 0x1p-12f, 0x1p-12f};
  const float b[7] = {0x1p-13f, 0x1p-13f, 0x1p-13f, 0x1p-13f, 0x1p-13f, 0x1p-13f, 0x1p-13f};
  EXPECT_EQ(mma_group(1.0f, a, b, 7), 1.0f + 0x1p-23f);
  // Seven IEEE additions would stay at 1 (each 2^-25 is a quarter ulp); the exact sum 1 + 1.75 ulp rounds to
  // nearest at 1 + 2 ulp. The model gives neither.
  float sequential = 1.0f;
  for (int i = 0; i < 7; ++i) sequential += a[i] * b[i];
  EXPECT_EQ(sequential, 1.0f);
  EXPECT_EQ(static_cast<float>(1.0 + 7 * 0x1p-25), 1.0f + 0x1p-22f);
  // The same with the signs flipped: round toward zero is symmetric.
  const float neg[7] = {-0x1p-12f, -0x1p-12f, -0x1p-12f, -0x1p-12f, -0x1p-12f, -0x1p-12f, -0x1p-12f};
  EXPECT_EQ(mma_group(-1.0f, neg, b, 7), -(1.0f + 0x1p-23f));
}

TEST(TensorCoreMma, TermsBelowTheWindowAreTruncatedAway) {
  // c = 1 and eight products 3 * 2^-14 * 2^-14 = 3 * 2^-28 = 0.75 units of 2^-26: each truncates to 0, so the
  // result is exactly 1, although the exact sum 1 + 24 * 2^-28 = 1 + 0.75 ulp would round up.
  const float a[8] = {3 * 0x1p-14f, 3 * 0x1p-14f, 3 * 0x1p-14f, 3 * 0x1p-14f,
                      3 * 0x1p-14f, 3 * 0x1p-14f, 3 * 0x1p-14f, 3 * 0x1p-14f};
  const float b[8] = {0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f, 0x1p-14f};
  EXPECT_EQ(mma_group(1.0f, a, b, 8), 1.0f);
  // Cancellation does not bring them back: c = 1, products -1 and 2^-30 -> the window is set by 1 before the
  // sum cancels, 2^-30 is truncated, the result is 0 (IEEE in order: 2^-30).
  const float a2[2] = {-1.0f, 0x1p-15f};
  const float b2[2] = {1.0f, 0x1p-15f};
  EXPECT_EQ(mma_group(1.0f, a2, b2, 2), 0.0f);
  // All zero: the accumulator passes through.
  const float z[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(mma_group(0.0f, z, z, 8), 0.0f);
  EXPECT_EQ(mma_group(0.5f, z, z, 8), 0.5f);
}

// Random FP16 values over a wide range, with zeros and FP16 subnormals mixed in.
float random_fp16(SeededRandom& random) {
  const std::uint64_t kind = random.below(10);
  if (kind == 0) return 0.0f;
  if (kind == 1) return float_from_fp16(static_cast<std::uint16_t>(random.below(1024)));  // subnormal
  const double magnitude = std::ldexp(0.5 + random.unit(), static_cast<int>(random.below(30)) - 20);
  return float_from_fp16(fp16_from_float(static_cast<float>(random.below(2) ? magnitude : -magnitude)));
}

TEST(TensorCoreMma, ColumnRoutineIsBitIdenticalToTheScalarStatement) {
  SeededRandom random(99);
  const int columns = 300;  // more than one 256-column chunk
  std::vector<float> w(8 * columns), c(columns), expected(columns);
  int checked = 0;
  for (int round = 0; round < 200; ++round) {
    float x[8];
    for (float& v : x) v = random_fp16(random);
    for (float& v : w) v = random_fp16(random);
    for (int j = 0; j < columns; ++j) {
      // Accumulators: some zero, some tiny (exercising the scalar fallback), most ordinary.
      const std::uint64_t kind = random.below(8);
      c[j] = kind == 0 ? 0.0f : kind == 1 ? 0x1p-110f : static_cast<float>(random.unit() * 64 - 32);
      float b[8];
      for (int q = 0; q < 8; ++q) b[q] = w[static_cast<size_t>(q * columns + j)];
      expected[j] = mma_group(c[j], x, b, 8);
    }
    mma_group_columns(c.data(), x, w.data(), columns, 8, columns);
    for (int j = 0; j < columns; ++j, ++checked)
      ASSERT_EQ(std::memcmp(&c[j], &expected[j], sizeof(float)), 0) << "round " << round << " column " << j << ": "
                                                                    << c[j] << " vs " << expected[j];
  }
  EXPECT_EQ(checked, 200 * columns);
}

}  // namespace
}  // namespace stasim
