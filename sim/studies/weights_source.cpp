#include "sim/studies/weights_source.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "sim/core/number_text.hpp"

namespace stasim {
namespace {

const std::vector<std::string> kKeys = {"size",         "hidden",       "intermediate", "experts",
                                        "shared_rank",  "expert_rank",  "shared_scale", "expert_scale",
                                        "noise_scale",  "seed",         "tokens"};

std::string key_list() {
  std::string list;
  for (const std::string& k : kKeys) list += (list.empty() ? "" : ", ") + k;
  return list;
}

std::string where(const std::string& key, const std::string& value) {
  return "--weights synthetic:" + key + "=" + value;
}

// A finite number.
double real_value(const std::string& key, const std::string& text) {
  try {
    size_t used = 0;
    const double value = text_to_double(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  throw InputError(where(key, text) + ": '" + text + "' is not a number");
}

// A whole number in [0, limit]: sizes, ranks and token counts are ints, the seed 64 bits.
std::uint64_t whole_value(const std::string& key, const std::string& text, std::uint64_t limit) {
  try {
    size_t used = 0;
    if (!text.empty() && text[0] != '-') {
      const unsigned long long value = std::stoull(text, &used);
      if (used == text.size() && value <= limit) return value;
    }
  } catch (const std::exception&) {
  }
  throw InputError(where(key, text) + ": '" + text + "' is not a whole number from 0 to " + std::to_string(limit));
}

}  // namespace

WeightsSource WeightsSource::parse(const std::string& text) {
  WeightsSource source;
  source.text = text;
  source.synthetic = text == "synthetic" || text.rfind("synthetic:", 0) == 0;
  if (!source.synthetic) return source;
  std::stringstream items(text.size() > 10 ? text.substr(10) : "");
  SyntheticWeightsConfig& c = source.synthetic_config;
  const std::uint64_t int_limit = std::numeric_limits<int>::max();
  for (std::string item; std::getline(items, item, ',');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--weights synthetic: '" + item + "' is not key=value (keys: " + key_list() + ")");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      const std::string near = nearest_match(key, kKeys);
      throw InputError("--weights synthetic: unknown key '" + key + "'" +
                       (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; keys: " + key_list());
    }
    if (source.has_key(key)) throw InputError(where(key, value) + ": " + key + " is given twice");
    source.synthetic_keys.push_back(key);
    if (key == "size") {  // small (the generator's defaults) or model (H, I, E of the model)
      source.model_size = value == "model";
      if (!source.model_size && value != "small") throw InputError(where(key, value) + ": must be small or model");
    } else if (key == "hidden") c.hidden = static_cast<int>(whole_value(key, value, int_limit));
    else if (key == "intermediate") c.intermediate = static_cast<int>(whole_value(key, value, int_limit));
    else if (key == "experts") c.experts = static_cast<int>(whole_value(key, value, int_limit));
    else if (key == "shared_rank") c.shared_rank = static_cast<int>(whole_value(key, value, int_limit));
    else if (key == "expert_rank") c.expert_rank = static_cast<int>(whole_value(key, value, int_limit));
    else if (key == "shared_scale") c.shared_scale = real_value(key, value);
    else if (key == "expert_scale") c.expert_scale = real_value(key, value);
    else if (key == "noise_scale") c.noise_scale = real_value(key, value);
    else if (key == "seed") c.seed = whole_value(key, value, std::numeric_limits<std::uint64_t>::max());
    else if (key == "tokens") source.tokens = static_cast<int>(whole_value(key, value, int_limit));
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

ActivationSamples synthetic_activation_samples(SyntheticActivationsConfig config, int evaluation_tokens) {
  ActivationSamples samples;
  const std::uint64_t calibration_seed = config.seed;
  samples.calibration = synthetic_activations(config);
  config.tokens = evaluation_tokens;
  config.seed = calibration_seed + 1;
  samples.evaluation = synthetic_activations(config);
  samples.description = std::to_string(samples.calibration.cols()) + " synthetic tokens (seed " +
                        std::to_string(calibration_seed) + "); evaluation: " + std::to_string(evaluation_tokens) +
                        " held-out synthetic tokens (seed " + std::to_string(config.seed) + ")";
  return samples;
}

int first_moe_layer(const ModelSpec& model) {
  for (std::int64_t l = 0; l < model.layers; ++l)
    if (model.has_moe(l)) return static_cast<int>(l);
  return 0;
}

}  // namespace stasim
