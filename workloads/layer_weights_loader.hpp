// Reads one MoE layer's expert weights from a checkpoint (a .safetensors file, a sharded set's index, or a
// directory of either) using the tensor-name patterns of the model YAML's `weights:` section. Every tensor's
// shape is checked against the model's H and I (unsharded); BF16/F16/F32 are widened exactly to float. Bad
// input (no patterns for the model, a layer without experts, a missing tensor, a wrong shape or dtype) is an
// InputError naming the file and the tensor.
#pragma once

#include <string>
#include <vector>

#include "workloads/expert_weights.hpp"
#include "workloads/model_spec.hpp"

namespace stasim {

// `projections` from "gate", "up", "down" (empty: every projection the model has), returned in the order gate,
// up, down. `experts` > 0 reads only the first that many experts (a real layer can hold several GB); 0 = all.
LayerWeights load_layer_weights(const ModelSpec& model, const std::string& path, int layer,
                                const std::vector<std::string>& projections = {}, int experts = 0);

// The checkpoint tensor name (and, for a fused tensor, where the expert's slice starts) of one projection of
// one expert, as load_layer_weights resolves it. Throws InputError when the model has no pattern for it.
struct ExpertTensorRef {
  std::string name;
  std::vector<std::int64_t> shape;   // the shape the checkpoint tensor must have
  std::int64_t first_element = 0;    // the expert's slice within it
};
ExpertTensorRef expert_tensor(const ModelSpec& model, const std::string& projection, int layer, int expert);

}  // namespace stasim
