#include "workloads/tensor_core_mma.hpp"

#include <cmath>
#include <cstring>

// Every step below is an exact IEEE operation or an integer one; forbid contraction so no host fuses them.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace stasim {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Biased exponent field of |f|'s largest term; the alignment window's LSB is 2^(e - 127 - (kMmaAlignmentBits - 1)).
constexpr int kWindowShift = kMmaAlignmentBits - 1;
// Lanes whose largest term is below 2^(kWindowShift + 1 - 127) (or zero, or non-finite) take the scalar path:
// scaling by 2^(kWindowShift - e) and back must stay inside FP32's normal range.
constexpr std::uint32_t kMinFastExponent = kWindowShift + 1;

}  // namespace

float mma_group(float c, const float* a, const float* b, int count) {
  double terms[kMmaGroupSize + 1];
  terms[0] = c;
  double largest = std::fabs(static_cast<double>(c));
  bool finite = std::isfinite(c);
  for (int i = 0; i < count; ++i) {
    // An FP16 x FP16 product has at most 22 significant bits: exact in double (and in float).
    terms[i + 1] = static_cast<double>(a[i]) * static_cast<double>(b[i]);
    largest = std::fmax(largest, std::fabs(terms[i + 1]));
    finite = finite && std::isfinite(terms[i + 1]);
  }
  if (!finite) {  // no alignment for infinities and NaN: plain IEEE sum
    double sum = 0;
    for (int i = 0; i <= count; ++i) sum += terms[i];
    return static_cast<float>(sum);
  }
  if (largest == 0) return c;
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest in [2^(exponent-1), 2^exponent)
  const int lsb = exponent - 1 - kWindowShift;
  // Truncate every term to a multiple of 2^lsb and add exactly: each is below 2^(kMmaAlignmentBits) units, nine
  // of them stay far inside int64.
  std::int64_t units = 0;
  for (int i = 0; i <= count; ++i) units += static_cast<std::int64_t>(std::trunc(std::ldexp(terms[i], -lsb)));
  if (units == 0) return 0.0f;
  // Normalize and truncate to 24 significant bits.
  std::int64_t magnitude = units < 0 ? -units : units;
  int length = 0;
  while ((magnitude >> length) != 0) ++length;
  int shift = 0;
  if (length > 24) {
    shift = length - 24;
    magnitude >>= shift;
  }
  const double value = std::ldexp(static_cast<double>(magnitude), lsb + shift);
  return static_cast<float>(units < 0 ? -value : value);
}

namespace {

// Truncating conversion of a scaled term. Finite terms of a fast lane are below 2^27 in magnitude; the clamp
// only keeps the discarded results of slow lanes (infinities, NaN) a defined conversion.
inline std::int32_t units_of(float scaled) {
  scaled = scaled < 0x1p30f ? scaled : 0x1p30f;
  scaled = scaled > -0x1p30f ? scaled : -0x1p30f;
  return static_cast<std::int32_t>(scaled);
}

// The model with the group size fixed, so the compiler unrolls the terms and vectorizes over columns. Marks in
// `slow` (leaving c untouched) the lanes whose largest term is tiny, zero or non-finite: scaling those by
// 2^(kWindowShift - e) and back would leave FP32's normal range, so the caller redoes them by mma_group.
template <int Count>
void fixed_group_columns(float* c, const float* x, const float* w, std::int64_t stride, int columns,
                         std::uint8_t* slow) {
  for (int j = 0; j < columns; ++j) {
    const float c0 = c[j];
    float p[Count];
    std::uint32_t e = bits_of(c0) & 0x7f800000u;
    for (int q = 0; q < Count; ++q) {
      p[q] = x[q] * w[q * stride + j];  // exact
      const std::uint32_t eq = bits_of(p[q]) & 0x7f800000u;
      e = eq > e ? eq : e;
    }
    e >>= 23;
    const std::uint32_t is_slow = (e < kMinFastExponent) | (e == 255u);
    slow[j] = static_cast<std::uint8_t>(is_slow);
    e = e < kMinFastExponent ? kMinFastExponent : (e > 254u ? 254u : e);
    // Scale so the window's LSB is 1, truncate each term toward zero (the conversion does), add exactly: every
    // term is below 2^27 in magnitude, the Count + 1 of them below 2^31.
    const float down = float_of((127u + kWindowShift + 127u - e) << 23);
    // Summed in unsigned arithmetic: a slow lane's clamped terms may overflow, and its result is discarded.
    std::uint32_t sum = static_cast<std::uint32_t>(units_of(c0 * down));
    for (int q = 0; q < Count; ++q) sum += static_cast<std::uint32_t>(units_of(p[q] * down));
    const std::int32_t units = static_cast<std::int32_t>(sum & (is_slow - 1u));  // 0 on slow lanes
    // Round toward zero to 24 bits: convert (to nearest), step down one ulp if that went above.
    const std::int32_t magnitude = units < 0 ? -units : units;
    float f = static_cast<float>(magnitude);
    f = static_cast<std::int32_t>(f) > magnitude ? float_of(bits_of(f) - 1u) : f;
    const float value = f * float_of((e - kWindowShift) << 23);
    const float result = units < 0 ? -value : value;
    c[j] = is_slow ? c0 : result;
  }
}

}  // namespace

void mma_group_columns(float* c, const float* x, const float* w, std::int64_t stride, int count, int columns) {
  std::uint8_t slow[256];
  for (int begin = 0; begin < columns; begin += 256) {
    const int width = columns - begin < 256 ? columns - begin : 256;
    float* cc = c + begin;
    const float* wb = w + begin;
    if (count == kMmaGroupSize) {
      fixed_group_columns<kMmaGroupSize>(cc, x, wb, stride, width, slow);
    } else {
      for (int j = 0; j < width; ++j) slow[j] = 1;  // other group sizes only occur in tests: scalar throughout
    }
    for (int j = 0; j < width; ++j) {
      if (!slow[j]) continue;
      float a_col[kMmaGroupSize], b_col[kMmaGroupSize];
      for (int q = 0; q < count; ++q) {
        a_col[q] = x[q];
        b_col[q] = wb[q * stride + j];
      }
      cc[j] = mma_group(cc[j], a_col, b_col, count);
    }
  }
}

}  // namespace stasim
