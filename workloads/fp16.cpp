#include "workloads/fp16.hpp"

#include <cstring>

namespace stasim {
namespace {

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Shifts `mantissa` right by `shift` bits rounding to nearest, ties to even. Integer arithmetic only, so the
// result does not depend on the host's floating-point environment.
std::uint32_t shift_round_even(std::uint32_t mantissa, int shift) {
  if (shift >= 32) return 0;  // everything shifted out is below half of the smallest step
  std::uint32_t kept = mantissa >> shift;
  std::uint32_t dropped = mantissa & ((1u << shift) - 1u);
  std::uint32_t half = 1u << (shift - 1);
  if (dropped > half || (dropped == half && (kept & 1u))) ++kept;
  return kept;
}

}  // namespace

std::uint16_t fp16_from_float(float value) {
  const std::uint32_t f = bits_of(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const int exponent = static_cast<int>((f >> 23) & 0xFFu);
  const std::uint32_t mantissa = f & 0x7FFFFFu;

  if (exponent == 0xFF) {  // infinity keeps its sign; NaN stays a quiet NaN carrying the top payload bits
    if (mantissa == 0) return static_cast<std::uint16_t>(sign | 0x7C00u);
    return static_cast<std::uint16_t>(sign | 0x7E00u | (mantissa >> 13));
  }
  // Unbiased exponent e: binary32 bias 127, binary16 bias 15.
  const int e = exponent - 127;
  if (e > 15) return static_cast<std::uint16_t>(sign | 0x7C00u);  // at or above 2^16: overflow to infinity
  if (e >= -14) {
    // Normal range: keep 10 of 23 mantissa bits. A carry out of the mantissa bumps the exponent, which is the
    // correct result (including the step from 65520 upward to infinity).
    std::uint32_t rounded = shift_round_even((static_cast<std::uint32_t>(e + 15) << 23) | mantissa, 13);
    if (rounded >= 0x7C00u) return static_cast<std::uint16_t>(sign | 0x7C00u);
    return static_cast<std::uint16_t>(sign | rounded);
  }
  // Subnormal (or zero) result: value = significand * 2^(e-23) expressed in units of 2^-24.
  if (exponent == 0) return sign;  // binary32 subnormals are far below half of 2^-24
  const std::uint32_t significand = mantissa | 0x800000u;
  // units of 2^-24: significand * 2^(e - 23 + 24) = significand >> (-(e + 1)).
  const int shift = -(e + 1);
  return static_cast<std::uint16_t>(sign | shift_round_even(significand, shift));
}

float float_from_fp16(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const int exponent = (bits >> 10) & 0x1F;
  std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return float_of(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) return float_of(sign | (static_cast<std::uint32_t>(exponent - 15 + 127) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_of(sign);
  // Subnormal binary16: normalise into a binary32 normal.
  int e = -14;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return float_of(sign | (static_cast<std::uint32_t>(e + 127) << 23) | ((mantissa & 0x3FFu) << 13));
}

}  // namespace stasim
