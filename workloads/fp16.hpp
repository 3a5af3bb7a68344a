// IEEE 754 binary16 conversion for the numeric models. fp16_from_float rounds to nearest, ties to even, with
// subnormals and overflow to infinity exactly as hardware conversion does; float_from_fp16 is exact. Values are
// kept as raw bit patterns (uint16_t) so results can be hashed and compared bit for bit.
#pragma once

#include <cstdint>

namespace stasim {

std::uint16_t fp16_from_float(float value);
float float_from_fp16(std::uint16_t bits);

// Rounds a float to the nearest binary16 value and back: the FP16 rounding step of a kernel's epilogue.
inline float round_to_fp16(float value) { return float_from_fp16(fp16_from_float(value)); }

}  // namespace stasim
