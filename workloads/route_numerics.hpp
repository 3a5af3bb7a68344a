// The exact-arithmetic model of route-blocks.md for one MoE layer: FP16 inputs and weights; inside each slice
// of the work partition, Marlin's in-slice order (warp-row chains of tensor-core MMA steps, then the thread-block
// reduce: marlin_slice.hpp); split partials reduced across slices in the partition's order; FP16 outputs; then
// SiLU-gated activation, the second GEMM under its own partition, and the weighted combine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/alignment.hpp"
#include "workloads/synthetic_moe_layer.hpp"
#include "workloads/work_partition.hpp"

namespace stasim {

// One evaluation: an alignment (which rows form which blocks) and the two GEMMs' partitions.
struct LayerRun {
  Alignment alignment;
  WorkPartition w13;  // N = 2I, K = H
  WorkPartition w2;   // N = H, K = I
};

struct SurfaceHashes {
  std::string w13, activation, routed_w2, final_output;  // SHA-256 of the FP16 bytes

  bool operator==(const SurfaceHashes& o) const {
    return w13 == o.w13 && activation == o.activation && routed_w2 == o.routed_w2 && final_output == o.final_output;
  }
  bool operator!=(const SurfaceHashes& o) const { return !(*this == o); }
};

// FP16 bit patterns of each surface, per route in route-id order (so histories compare) or per token.
struct LayerSurfaces {
  std::vector<std::uint16_t> w13;           // routes x 2I
  std::vector<std::uint16_t> activation;    // routes x I
  std::vector<std::uint16_t> routed_w2;     // routes x H
  std::vector<std::uint16_t> final_output;  // tokens x H

  SurfaceHashes hashes() const;
};

// Evaluates several runs of one layer together: each expert's weights are dequantized once and serve every
// run, the dominant cost otherwise. Results are independent of how runs are batched.
std::vector<LayerSurfaces> evaluate_layer(const SyntheticMoeLayer& layer, const std::vector<LayerRun>& runs);

// silu(g) * u rounded to FP16, with exp computed by a fixed polynomial so the bits do not depend on libm.
float silu_gate(float gate, float up);
// e^x in double from range reduction and a degree-13 Taylor polynomial: IEEE operations only.
double portable_exp(double x);

}  // namespace stasim
