#include "workloads/synthetic_moe_layer.hpp"

#include <string>

#include "sim/core/input_error.hpp"
#include "workloads/fp16.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

// Independent streams per (seed, expert, matrix): a SplitMix64 finaliser spreads nearby inputs apart.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t expert, std::uint64_t matrix) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (expert * 4 + matrix + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

float dequantize_int4(std::uint8_t q, std::uint8_t zero, std::uint16_t scale_fp16) {
  // (q - zero) has at most 5 bits and the scale 11, so the FP32 product is exact; FP16 rounding is the
  // kernel's dequantization step.
  return round_to_fp16(static_cast<float>(static_cast<int>(q) - static_cast<int>(zero)) * float_from_fp16(scale_fp16));
}

SyntheticMoeLayer::SyntheticMoeLayer(RoutingTrace routing, const SyntheticMoeLayerConfig& config)
    : routing_(std::move(routing)), config_(config) {
  Problems problems;
  if (config.hidden <= 0 || config.intermediate <= 0)
    problems.add("hidden and intermediate sizes must be positive");
  if (config.group_size <= 0 || config.hidden % config.group_size != 0 || config.intermediate % config.group_size != 0)
    problems.add("scale group size " + std::to_string(config.group_size) + " must divide hidden " +
                 std::to_string(config.hidden) + " and intermediate " + std::to_string(config.intermediate));
  problems.throw_if_any();
  SeededRandom random(stream_seed(config.seed, 0xFFFFFFFFull, 3));
  activations_.resize(static_cast<size_t>(routing_.tokens * config.hidden));
  for (float& x : activations_) x = round_to_fp16(static_cast<float>(2.0 * random.unit() - 1.0));
}

void SyntheticMoeLayer::w13(std::int32_t expert, std::vector<float>& out) const {
  dequantized(expert, 0, config_.hidden, 2 * config_.intermediate, out);
}

void SyntheticMoeLayer::w2(std::int32_t expert, std::vector<float>& out) const {
  dequantized(expert, 1, config_.intermediate, config_.hidden, out);
}

void SyntheticMoeLayer::dequantized(std::int32_t expert, int matrix, std::int64_t k, std::int64_t n,
                                    std::vector<float>& out) const {
  SeededRandom random(stream_seed(config_.seed, static_cast<std::uint64_t>(expert), static_cast<std::uint64_t>(matrix)));
  const std::int64_t groups = k / config_.group_size;
  // Scales in [0.004, 0.016) and zero points in [6, 10) keep every surface of order 1, far from FP16 overflow.
  std::vector<std::uint16_t> scales(static_cast<size_t>(groups * n));
  std::vector<std::uint8_t> zeros(static_cast<size_t>(groups * n));
  for (size_t i = 0; i < scales.size(); ++i) {
    scales[i] = fp16_from_float(static_cast<float>(0.004 + 0.012 * random.unit()));
    zeros[i] = static_cast<std::uint8_t>(6 + random.below(4));
  }
  out.resize(static_cast<size_t>(k * n));
  // Per group and column only 16 values exist; dequantize them once (same result as per element).
  std::vector<float> table(static_cast<size_t>(n * 16));
  std::uint64_t bits = 0;
  int nibbles_left = 0;
  for (std::int64_t row = 0; row < k; ++row) {
    if (row % config_.group_size == 0) {
      const size_t group_row = static_cast<size_t>((row / config_.group_size) * n);
      for (std::int64_t col = 0; col < n; ++col)
        for (std::uint8_t q = 0; q < 16; ++q)
          table[static_cast<size_t>(col * 16 + q)] =
              dequantize_int4(q, zeros[group_row + static_cast<size_t>(col)], scales[group_row + static_cast<size_t>(col)]);
    }
    for (std::int64_t col = 0; col < n; ++col) {
      if (nibbles_left == 0) {
        bits = random.next();
        nibbles_left = 16;
      }
      out[static_cast<size_t>(row * n + col)] = table[static_cast<size_t>(col * 16) + (bits & 0xF)];
      bits >>= 4;
      --nibbles_left;
    }
  }
}

}  // namespace stasim
