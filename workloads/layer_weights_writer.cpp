#include "workloads/layer_weights_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "workloads/safetensors_writer.hpp"

namespace stasim {
namespace {

// A fused tensor (all experts, or gate and up together) is assembled here before it is written.
struct PendingTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
  int shard = 0;
};

}  // namespace

void write_layer_weights(const ModelSpec& model, const LayerWeights& weights, const std::string& path, TensorDtype dtype,
                         int shards) {
  if (weights.hidden != model.hidden || weights.intermediate != model.expert_intermediate)
    throw InputError(path + ": the layer is H " + std::to_string(weights.hidden) + " × I " + std::to_string(weights.intermediate) +
                     " but " + model.name + " has H " + std::to_string(model.hidden) + ", I " +
                     std::to_string(model.expert_intermediate));
  if (model.weights.empty()) expert_tensor(model, "up", weights.layer, 0);  // throws: the model has no patterns
  if (shards < 1 || shards > model.experts)
    throw InputError("shards " + std::to_string(shards) + ": expected 1.." + std::to_string(model.experts));
  const std::int64_t E = model.experts;
  std::map<std::string, PendingTensor> tensors;
  for (const ProjectionWeights& projection : weights.projections) {
    // Per-expert tensors may stop after the first experts (a demo checkpoint); a fused tensor holds all E.
    const std::int64_t count = static_cast<std::int64_t>(projection.experts.size());
    const bool stacked = !pattern_has_expert(model.weights.pattern_of(projection.name));
    if (count > E || count == 0 || (stacked && count != E))
      throw InputError(path + ": the " + projection.name + " projection has " + std::to_string(count) + " experts; " +
                       model.name + " has " + std::to_string(E) + (stacked ? " and stores them in one tensor" : ""));
    for (int e = 0; e < count; ++e) {
      ExpertTensorRef ref = expert_tensor(model, projection.name, weights.layer, e);
      PendingTensor& t = tensors[ref.name];
      if (t.values.empty()) {
        t.shape = ref.shape;
        std::int64_t n = 1;
        for (std::int64_t dim : ref.shape) n *= dim;
        t.values.assign(static_cast<size_t>(n), 0.0f);
        t.shard = static_cast<int>(e * shards / count);
      }
      // Column-major W (H×I, or I×H for down) is exactly the row-major [I, H] ([H, I]) PyTorch tensor.
      const Eigen::MatrixXf& w = projection.experts[static_cast<size_t>(e)];
      std::copy(w.data(), w.data() + w.size(), t.values.begin() + ref.first_element);
    }
  }
  std::vector<SafetensorsWriter> writers(static_cast<size_t>(shards));
  for (auto& [name, t] : tensors) writers[static_cast<size_t>(t.shard)].add_floats(name, t.shape, t.values, dtype);
  if (shards == 1) {
    writers.front().set_metadata("format", "pt");
    writers.front().write(path);
    return;
  }
  std::filesystem::create_directories(path);
  nlohmann::json index = {{"metadata", nlohmann::json::object()}, {"weight_map", nlohmann::json::object()}};
  auto shard_name = [&](int i) {
    char text[64];
    std::snprintf(text, sizeof text, "model-%05d-of-%05d.safetensors", i + 1, shards);
    return std::string(text);
  };
  for (int i = 0; i < shards; ++i) {
    writers[static_cast<size_t>(i)].set_metadata("format", "pt");
    writers[static_cast<size_t>(i)].write((std::filesystem::path(path) / shard_name(i)).string());
  }
  for (const auto& [name, t] : tensors) index["weight_map"][name] = shard_name(t.shard);
  replace_output_file((std::filesystem::path(path) / "model.safetensors.index.json").string(), index.dump(2) + "\n",
                      "the checkpoint index");
}

}  // namespace stasim
