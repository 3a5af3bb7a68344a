// A seeded synthetic MoE layer for the numeric experiments: FP16 activations per token, and per expert 4-bit
// weights with per-group FP16 scales and zero points (AWQ-style, groups along K), dequantized to FP16 on
// demand so only one expert's weights are held at a time. Same seed, same bits, on any machine.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/routing.hpp"

namespace stasim {

struct SyntheticMoeLayerConfig {
  std::int64_t hidden = 2048;       // H: K of the first GEMM, N of the second
  std::int64_t intermediate = 768;  // I: the first GEMM has N = 2I (gate and up), the second K = I
  std::int64_t group_size = 128;    // scale group along K
  std::uint64_t seed = 0;
};

class SyntheticMoeLayer {
 public:
  SyntheticMoeLayer(RoutingTrace routing, const SyntheticMoeLayerConfig& config);

  const RoutingTrace& routing() const { return routing_; }
  const SyntheticMoeLayerConfig& config() const { return config_; }
  // M x H FP16 activations, held as the floats they represent exactly.
  const std::vector<float>& activations() const { return activations_; }

  // Dequantized weights, K-major (row k holds the N outputs' weights), each value an exact FP16 value.
  void w13(std::int32_t expert, std::vector<float>& out) const;  // H x 2I
  void w2(std::int32_t expert, std::vector<float>& out) const;   // I x H

 private:
  void dequantized(std::int32_t expert, int matrix, std::int64_t k, std::int64_t n, std::vector<float>& out) const;

  RoutingTrace routing_;
  SyntheticMoeLayerConfig config_;
  std::vector<float> activations_;
};

// w = fp16((q - zero) * scale): the FP16 dequantization of one 4-bit weight.
float dequantize_int4(std::uint8_t q, std::uint8_t zero, std::uint16_t scale_fp16);

}  // namespace stasim
