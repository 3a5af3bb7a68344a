// A built LR+VQ layer (workloads/representation_builder.hpp) as a .safetensors file, so it can be inspected or
// loaded elsewhere. Tensor names, row-major shapes (L = layer, P = gate or up, e = expert):
//   layers.L.P.codebook                  [K, d]    B, row k = code word k        (F32 or BF16; absent for LR-only)
//   layers.L.P.experts.e.indices         [H/d, I]  J_e, U8                        (absent for LR-only)
//   layers.L.P.basis                     [H, r]    D                              (F32 or BF16; absent when r = 0)
//   layers.L.P.experts.e.coefficients    [r, I]    C_e                            (F32 or BF16; absent when r = 0)
// and __metadata__ {format: "stasim-lr-vq", version: "1", layer, hidden, intermediate, experts, representation,
// d, r, K, projections: "gate,up"}, plus `provenance` (the writing command's, JSON text) when one is given.
// Written deterministically; reading checks every name, shape and index.
#pragma once

#include <string>

#include "workloads/representation_builder.hpp"
#include "workloads/safetensors_file.hpp"

namespace stasim {

// `dtype` of B, D and C_e: BF16 (the stored form of docs/cardan.md, rounded to nearest even) or F32 (exact).
void write_representation(const std::string& path, const BuiltLayer& built, TensorDtype dtype = TensorDtype::bf16,
                          const std::string& provenance = "");

// Reads a file written by write_representation; InputError naming the file and the tensor for a missing
// tensor, a wrong shape or dtype, an index ≥ K, or metadata that is not this format's.
BuiltLayer read_representation(const std::string& path);

}  // namespace stasim
