#include "workloads/layer_weights_loader.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "workloads/safetensors_set.hpp"

namespace stasim {
namespace {

std::string model_label(const ModelSpec& model) {
  return (model.source_file.empty() ? model.name : model.source_file) + " (" + model.name + ")";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  TensorInfo info;
  info.shape = shape;
  return info.shape_text();
}

}  // namespace

ExpertTensorRef expert_tensor(const ModelSpec& model, const std::string& projection, int layer, int expert) {
  const WeightPatterns& weights = model.weights;
  if (weights.empty())
    throw InputError(model_label(model) + ": the model has no weights: section, so there is no per-expert tensor-name "
                     "pattern to read its checkpoint with");
  const std::string& pattern = weights.pattern_of(projection);
  if (pattern.empty())
    throw InputError(model_label(model) + ": weights: has no pattern for the " + projection + " projection");
  const std::int64_t H = model.hidden, I = model.expert_intermediate, E = model.experts;
  const bool fused = projection != "down" && !weights.gate_up.empty();
  // PyTorch nn.Linear weights are [out, in]: gate/up [I, H] (fused gate_up [2I, H]), down [H, I].
  std::vector<std::int64_t> per_expert = projection == "down" ? std::vector<std::int64_t>{H, I}
                                                              : std::vector<std::int64_t>{fused ? 2 * I : I, H};
  ExpertTensorRef ref;
  ref.first_element = fused && projection == "up" ? I * H : 0;  // up rows follow the gate rows
  if (pattern_has_expert(pattern)) {
    ref.shape = per_expert;
  } else {
    ref.shape = {E, per_expert[0], per_expert[1]};
    ref.first_element += expert * per_expert[0] * per_expert[1];
  }
  ref.name = expand_pattern(pattern, layer, expert);
  return ref;
}

LayerWeights load_layer_weights(const ModelSpec& model, const std::string& path, int layer,
                                const std::vector<std::string>& projections, int experts) {
  if (layer < 0 || layer >= model.layers)
    throw InputError("--layer " + std::to_string(layer) + ": " + model.name + " has layers 0.." +
                     std::to_string(model.layers - 1));
  if (!model.has_moe(layer))
    throw InputError("--layer " + std::to_string(layer) + ": layer " + std::to_string(layer) + " of " + model.name +
                     " has no routed experts (" + to_string(model.layer_kind(layer)) + ")");
  std::vector<std::string> wanted = projections;
  if (wanted.empty()) wanted = model.gated ? std::vector<std::string>{"gate", "up", "down"} : std::vector<std::string>{"up", "down"};
  for (const std::string& name : wanted) {
    if (name != "gate" && name != "up" && name != "down")
      throw InputError("projection '" + name + "': expected gate, up or down");
    if (name == "gate" && !model.gated)
      throw InputError("projection 'gate': " + model.name + " is not gated (up, activation, down)");
  }
  if (experts < 0 || experts > model.experts)
    throw InputError("experts " + std::to_string(experts) + ": " + model.name + " has " + std::to_string(model.experts));
  const int count = experts == 0 ? static_cast<int>(model.experts) : experts;

  SafetensorsSet set(path);
  LayerWeights out;
  out.layer = layer;
  out.hidden = static_cast<int>(model.hidden);
  out.intermediate = static_cast<int>(model.expert_intermediate);
  const std::int64_t H = model.hidden, I = model.expert_intermediate;
  for (const char* projection : {"gate", "up", "down"}) {
    if (std::find(wanted.begin(), wanted.end(), projection) == wanted.end()) continue;
    ProjectionWeights weights;
    weights.name = projection;
    const bool down = weights.name == "down";
    for (int e = 0; e < count; ++e) {
      ExpertTensorRef ref = expert_tensor(model, projection, layer, e);
      const SafetensorsFile& file = set.file_of(ref.name);
      const TensorInfo& info = file.find(ref.name);
      if (info.shape != ref.shape)
        throw InputError(file.path() + ": tensor '" + ref.name + "' has shape " + info.shape_text() + " but " +
                         model.name + " (H = " + std::to_string(H) + ", I = " + std::to_string(I) + ", E = " +
                         std::to_string(model.experts) + ") needs " + shape_text(ref.shape) + " for the " + projection +
                         " projection of expert " + std::to_string(e));
      std::vector<float> values = file.read_floats(ref.name, ref.first_element, H * I);
      // Row-major [I, H] read column-major is W_e (H×I); row-major [H, I] read column-major is I×H.
      weights.experts.push_back(Eigen::Map<Eigen::MatrixXf>(values.data(), down ? I : H, down ? H : I));
    }
    out.projections.push_back(std::move(weights));
  }
  return out;
}

}  // namespace stasim
