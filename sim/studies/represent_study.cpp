#include "sim/studies/represent_study.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/number_text.hpp"
#include "workloads/safetensors_file.hpp"

namespace stasim {
namespace {

// "synthetic" or "synthetic:key=value,key=value": true, and the key/value pairs into keys; false for anything
// else (a file name).
bool parse_spec(const std::string& text, const std::string& option, std::map<std::string, std::string>* keys) {
  const std::string prefix = "synthetic";
  if (text.rfind(prefix, 0) != 0 || (text.size() > prefix.size() && text[prefix.size()] != ':')) return false;
  std::stringstream list(text.size() > prefix.size() ? text.substr(prefix.size() + 1) : "");
  std::string item;
  while (std::getline(list, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(option + " " + text + ": '" + item + "' is not key=value");
    (*keys)[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return true;
}

double number(const std::string& option, const std::string& key, const std::string& value) {
  try {
    std::size_t used = 0;
    const double v = text_to_double(value, &used);
    if (used == value.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError(option + " synthetic:" + key + "=" + value + ": '" + value + "' is not a number");
}

void reject_unknown(const std::string& option, const std::map<std::string, std::string>& keys,
                    const std::vector<std::string>& known) {
  for (const auto& [key, value] : keys) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = option + " synthetic: unknown key '" + key + "'";
    const std::string near = nearest_match(key, known);
    if (!near.empty()) message += " (did you mean '" + near + "'?)";
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(message + "; keys: " + list);
  }
}

// --activations synthetic[:tokens=..,spread=..,outliers=..,outlier_scale=..,seed=..]
SyntheticActivationsConfig synthetic_activations_config(const std::map<std::string, std::string>& keys, int hidden,
                                                        std::uint64_t seed) {
  const std::string option = "--activations";
  reject_unknown(option, keys, {"tokens", "spread", "outliers", "outlier_scale", "seed"});
  SyntheticActivationsConfig a;
  a.hidden = hidden;
  a.tokens = kCalibrationTokens;
  a.seed = seed + kActivationSeedOffset;
  // Counts and the seed must be whole numbers their type holds; the rest finite numbers.
  auto get = [&](const char* key, auto& field) {
    using Field = std::remove_reference_t<decltype(field)>;
    auto it = keys.find(key);
    if (it == keys.end()) return;
    const double v = number(option, key, it->second);
    if constexpr (std::is_integral_v<Field>) {
      if (v != std::floor(v) || v < 0 || v > static_cast<double>(std::numeric_limits<Field>::max()))
        throw InputError(option + " synthetic:" + key + "=" + it->second + ": must be a whole number from 0 to " +
                         std::to_string(std::numeric_limits<Field>::max()));
    }
    field = static_cast<Field>(v);
  };
  get("tokens", a.tokens);
  get("spread", a.channel_spread);
  get("outliers", a.outlier_channels);
  get("outlier_scale", a.outlier_scale);
  get("seed", a.seed);
  return a;
}

// A .safetensors file with one F32/F16/BF16 tensor `activations` of shape [n, H] (one token per row, as a
// PyTorch hidden-state dump): the first n − eval_tokens tokens calibrate, the last eval_tokens evaluate.
ActivationSamples activations_from_file(const std::string& path, int hidden, int eval_tokens) {
  SafetensorsFile file(path);
  const TensorInfo& info = file.find("activations");
  if (info.shape.size() != 2 || info.shape[1] != hidden)
    throw InputError(path + ": tensor 'activations' has shape " + info.shape_text() + ", expected [tokens, " +
                     std::to_string(hidden) + "] (H of the weights)");
  const std::int64_t n = info.shape[0];
  if (n <= eval_tokens)
    throw InputError(path + ": " + std::to_string(n) + " tokens, need more than --eval-tokens = " +
                     std::to_string(eval_tokens) + " (the last ones are held out for evaluation)");
  const std::vector<float> values = file.read_floats("activations");
  const Eigen::Map<const Eigen::MatrixXf> all(values.data(), hidden, n);  // row-major [n, H] = column-major H×n
  ActivationSamples a;
  a.calibration = all.leftCols(n - eval_tokens);
  a.evaluation = all.rightCols(eval_tokens);
  a.description = std::to_string(n - eval_tokens) + " tokens of " + path + " (evaluation: its last " +
                  std::to_string(eval_tokens) + ")";
  return a;
}

}  // namespace

ActivationSamples load_activations(const std::string& text, int hidden, int eval_tokens, std::uint64_t seed) {
  std::map<std::string, std::string> keys;
  return parse_spec(text, "--activations", &keys)
             ? synthetic_activation_samples(synthetic_activations_config(keys, hidden, seed), eval_tokens)
             : activations_from_file(text, hidden, eval_tokens);
}

void print_representation_table(std::FILE* out, const std::vector<RepresentationQuality>& rows) {
  std::fprintf(out, "%-14s %4s %5s %4s %12s %12s %9s\n", "representation", "d", "r", "K", "bits/weight", "nmse", "build_s");
  for (const auto& q : rows)
    std::fprintf(out, "%-14s %4d %5d %4d %12.4f %12.6f %9.2f\n", q.representation.c_str(), q.d, q.r, q.K,
                q.bits_per_weight, q.nmse, q.build_seconds);
}

nlohmann::json representation_table_json(const std::string& weights, const LayerWeights& w, const ActivationSamples& a,
                          const std::vector<RepresentationQuality>& rows) {
  nlohmann::json doc;
  doc["command"] = "represent";
  doc["weights"] = weights;
  doc["layer"] = w.layer;
  doc["hidden"] = w.hidden;
  doc["intermediate"] = w.intermediate;
  nlohmann::json projections = nlohmann::json::array();
  int experts = 0;
  for (const auto& p : w.projections)
    if (p.name != "down") {
      projections.push_back(p.name);
      experts = static_cast<int>(p.experts.size());
    }
  doc["experts"] = experts;
  doc["projections"] = projections;
  doc["calibration_tokens"] = a.calibration.cols();
  doc["evaluation_tokens"] = a.evaluation.cols();
  doc["matched_rate_rule"] = kMatchedRateRule;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& q : rows)
    list.push_back({{"representation", q.representation}, {"d", q.d}, {"r", q.r}, {"K", q.K},
                    {"bits_per_weight", q.bits_per_weight}, {"nmse", q.nmse}, {"build_seconds", q.build_seconds}});
  doc["representations"] = list;
  return doc;
}

}  // namespace stasim
