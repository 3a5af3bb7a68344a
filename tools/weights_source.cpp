#include "tools/weights_source.hpp"

#include <algorithm>
#include <sstream>

#include "sim/input_error.hpp"
#include "workloads/layer_weights_loader.hpp"

namespace stasim::cli {
namespace {

constexpr const char* kKeys = "size, hidden, intermediate, experts, shared_rank, expert_rank, shared_scale, "
                              "expert_scale, noise_scale, seed, tokens";

double parse_number(const std::string& key, const std::string& text) {
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw InputError("--weights synthetic: " + key + "='" + text + "' is not a number");
}

}  // namespace

WeightsSource WeightsSource::parse(const std::string& text) {
  WeightsSource source;
  source.text = text;
  source.synthetic = text == "synthetic" || text.rfind("synthetic:", 0) == 0;
  if (!source.synthetic) return source;
  std::stringstream items(text.size() > 10 ? text.substr(10) : "");
  SyntheticWeightsConfig& c = source.synthetic_config;
  for (std::string item; std::getline(items, item, ',');) {
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError("--weights synthetic: '" + item + "' is not key=value (keys: " + kKeys + ")");
    std::string key = item.substr(0, eq);
    source.synthetic_keys.push_back(key);
    if (key == "size") {  // as in stasim represent: small (the generator's defaults) or model (H, I, E of the model)
      source.model_size = item.substr(eq + 1) == "model";
      if (!source.model_size && item.substr(eq + 1) != "small")
        throw InputError("--weights synthetic:size=" + item.substr(eq + 1) + ": must be small or model");
      continue;
    }
    double v = parse_number(key, item.substr(eq + 1));
    if (key == "hidden") c.hidden = static_cast<int>(v);
    else if (key == "intermediate") c.intermediate = static_cast<int>(v);
    else if (key == "experts") c.experts = static_cast<int>(v);
    else if (key == "shared_rank") c.shared_rank = static_cast<int>(v);
    else if (key == "expert_rank") c.expert_rank = static_cast<int>(v);
    else if (key == "shared_scale") c.shared_scale = v;
    else if (key == "expert_scale") c.expert_scale = v;
    else if (key == "noise_scale") c.noise_scale = v;
    else if (key == "seed") c.seed = static_cast<std::uint64_t>(v);
    else if (key == "tokens") source.tokens = static_cast<int>(v);
    else throw InputError("--weights synthetic: unknown key '" + key + "' (keys: " + kKeys + ")");
  }
  std::vector<std::string> problems = c.problems();
  if (source.tokens <= 0) problems.push_back("synthetic.tokens must be > 0");
  if (!problems.empty()) throw InputError(problems);
  return source;
}

bool WeightsSource::has_key(const std::string& key) const {
  return std::find(synthetic_keys.begin(), synthetic_keys.end(), key) != synthetic_keys.end();
}

LayerWeights WeightsSource::load(const ModelSpec& model, int layer, const std::vector<std::string>& projections) const {
  if (!synthetic) return load_layer_weights(model, text, layer, projections, experts);
  SyntheticWeightsConfig config = synthetic_config;
  config.gated = model.gated;
  if (model_size) {  // the model's shapes, unless a key chose one
    if (!has_key("hidden")) config.hidden = static_cast<int>(model.hidden);
    if (!has_key("intermediate")) config.intermediate = static_cast<int>(model.expert_intermediate);
    if (!has_key("experts")) config.experts = static_cast<int>(model.experts);
  }
  config.with_down = std::find(projections.begin(), projections.end(), "down") != projections.end();
  LayerWeights weights = synthetic_layer_weights(config, layer);
  // Keep only the projections asked for, in the order gate, up, down.
  std::vector<ProjectionWeights> kept;
  for (ProjectionWeights& p : weights.projections)
    if (std::find(projections.begin(), projections.end(), p.name) != projections.end()) kept.push_back(std::move(p));
  weights.projections = std::move(kept);
  return weights;
}

int first_moe_layer(const ModelSpec& model) {
  for (std::int64_t l = 0; l < model.layers; ++l)
    if (model.has_moe(l)) return static_cast<int>(l);
  return 0;
}

}  // namespace stasim::cli
