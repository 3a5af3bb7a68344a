// The inverse of load_layer_weights: writes one layer's expert weights under the model's checkpoint tensor
// names (its `weights:` patterns, per-expert or fused), as one .safetensors file or as `shards` files plus a
// `model.safetensors.index.json`, in the PyTorch [out, in] layout. For tests and demos: a synthetic layer
// exported this way reads back through the same path a real checkpoint takes.
#pragma once

#include <string>

#include "workloads/expert_weights.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/safetensors_file.hpp"

namespace stasim {

// `path`: the .safetensors file (shards = 1) or the directory to fill (shards > 1, experts spread evenly over
// model-0000i-of-0000n.safetensors). `weights` must have the model's H and I, and all E experts when the model
// stores them fused; per-expert tensors may cover only the first experts (a small demo checkpoint, read with
// load_layer_weights(..., experts)). InputError when the shapes or the patterns do not fit.
void write_layer_weights(const ModelSpec& model, const LayerWeights& weights, const std::string& path,
                         TensorDtype dtype = TensorDtype::bf16, int shards = 1);

}  // namespace stasim
