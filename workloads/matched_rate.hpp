// Matching storage rates (bits per weight, Representation::bits_per_weight) for the quality comparison:
// - LR-only: the rank r' ∈ [1, min(H, I)] whose rate is nearest the hybrid's (ties: the smaller rank).
// - VQ-only: the same K and the block length d' among the divisors of H whose rate is nearest the hybrid's
//   (ties: the smaller d', i.e. the higher rate).
// With H = 2048 one rank step is 16/H ≈ 0.008 bits, so LR-only lands within 0.004 bits of the hybrid; VQ-only
// can only take the rates log2(K)/d' and lands where the divisors allow (hybrid(8,384,256) → d' = 2).
#pragma once

#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {

Representation matched_lr_only(const Representation& hybrid, const ModelSpec& model);
Representation matched_vq_only(const Representation& hybrid, const ModelSpec& model);

// The model with hidden, expert_intermediate and experts replaced by the layer weights' shapes (for rates of
// synthetic layers whose sizes differ from the model YAML's).
ModelSpec with_layer_shape(const ModelSpec& model, int hidden, int intermediate, int experts);

}  // namespace stasim
