// `stasim represent`: builds the hybrid LR+VQ representation of one layer's gate/up expert weights (a checkpoint
// or a seeded synthetic layer), and prints bits/weight and NMSE of hybrid, VQ-only and LR-only at matched storage
// rates (workloads/matched_rate.hpp); optionally writes B, J_e, D, C_e to a .safetensors file.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/output_file.hpp"
#include "sim/core/input_error.hpp"
#include "sim/reports/result_report.hpp"
#include "tools/cli.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/resolved_configs.hpp"
#include "sim/studies/weights_source.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/representation_builder.hpp"
#include "workloads/representation_file.hpp"
#include "workloads/safetensors_file.hpp"
#include "workloads/synthetic_weights.hpp"
#include "sim/core/number_text.hpp"

namespace stasim::cli {
namespace {

constexpr const char* kMatchedRateRule =
    "VQ-only keeps K and takes the block length d' dividing H whose bits/weight is nearest the hybrid's; "
    "LR-only takes the rank r' whose bits/weight is nearest it (Representation::bits_per_weight on the layer's H, I, E)";

struct RepresentOptions {
  std::string model = "qwen3-30b-a3b";
  std::string weights;
  int layer = -1;  // the first MoE layer, as export-weights and sweep --weights-layer
  std::int64_t d = 0, r = 0, K = 0;
  std::string activations = "synthetic";
  int eval_tokens = kEvaluationTokens;
  int experts = 0;
  int iterations = 25;
  std::int64_t train_blocks = 0;
  std::uint64_t seed = 1;
  int threads = 0;
  bool no_whiten = false;
  std::string out;
  std::string json;
};

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

void print_table(const std::vector<RepresentationQuality>& rows) {
  std::printf("%-14s %4s %5s %4s %12s %12s %9s\n", "representation", "d", "r", "K", "bits/weight", "nmse", "build_s");
  for (const auto& q : rows)
    std::printf("%-14s %4d %5d %4d %12.4f %12.6f %9.2f\n", q.representation.c_str(), q.d, q.r, q.K,
                q.bits_per_weight, q.nmse, q.build_seconds);
}

nlohmann::json table_json(const RepresentOptions& o, const LayerWeights& w, const ActivationSamples& a,
                          const std::vector<RepresentationQuality>& rows) {
  nlohmann::json doc;
  doc["command"] = "represent";
  doc["weights"] = o.weights;
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

void run_represent(const CLI::App& sub, const Invocation& invocation, const RepresentOptions& o) {
  if (o.threads < 0) throw InputError("--threads " + std::to_string(o.threads) + ": 0 (all cores) or more");
  check_output_path("--out", o.out);
  check_output_path("--json", o.json);
  // Refused before the (minutes-long) build: outputs that collide, or that would overwrite an input.
  if (!o.out.empty()) require_replaceable(o.out, "the representation file");
  check_output_paths({{"--out", o.out}, {"--json", o.json}},
                     {{"--model", model_option("--model", o.model)},
                      {"--weights", o.weights.rfind("synthetic", 0) == 0 ? "" : o.weights},
                      {"--activations", o.activations.rfind("synthetic", 0) == 0 ? "" : o.activations}});
  check_output_writable("--out", o.out);  // before the build: a folder it cannot write in, a name too long
  check_output_writable("--json", o.json);
  const ModelSpec model = load_model(resolve_model(o.model));
  ResolvedConfigs configs;
  configs.models.push_back(resolved_model(o.model));
  if (!o.activations.empty() && o.activations.rfind("synthetic", 0) != 0)
    configs.files.push_back({"activations", o.activations, o.activations});
  const nlohmann::json prov = provenance(sub, invocation, configs_json(configs));
  WeightsSource source = WeightsSource::parse(o.weights);
  if (source.has_key("tokens"))
    throw InputError("--weights " + o.weights + ": tokens is the sweep's; here --activations synthetic:tokens=N sets them");
  if (source.synthetic && !source.has_key("seed")) source.synthetic_config.seed = o.seed;
  source.experts = o.experts;
  if (o.layer < -1) throw InputError("--layer " + std::to_string(o.layer) + ": a layer index is 0 or more (-1: the first MoE layer)");
  if (o.layer >= model.layers)
    throw InputError("--layer " + std::to_string(o.layer) + ": " + model.name + " has " + std::to_string(model.layers) +
                     " layers (0.." + std::to_string(model.layers - 1) + ")");
  const int layer = o.layer >= 0 ? o.layer : first_moe_layer(model);
  const LayerWeights weights = source.load(model, layer, model.gated ? std::vector<std::string>{"gate", "up"}
                                                                       : std::vector<std::string>{"up"});
  const SyntheticWeightsConfig& c = source.synthetic_config;
  const std::string weights_description =
      source.synthetic ? "synthetic layer (seed " + std::to_string(c.seed) + ", shared rank " +
                             std::to_string(c.shared_rank) + ", expert rank " + std::to_string(c.expert_rank) +
                             ", noise " + std::to_string(c.noise_scale).substr(0, 5) + ")"
                       : o.weights;
  std::map<std::string, std::string> activation_keys;
  const ActivationSamples acts =
      parse_spec(o.activations, "--activations", &activation_keys)
          ? synthetic_activation_samples(synthetic_activations_config(activation_keys, weights.hidden, o.seed),
                                         o.eval_tokens)
          : activations_from_file(o.activations, weights.hidden, o.eval_tokens);

  BuildSettings settings;
  settings.representation = Representation::hybrid(o.d, o.r, o.K);
  settings.kmeans.max_iterations = o.iterations;
  settings.kmeans.training_points = o.train_blocks;
  settings.kmeans.seed = o.seed;
  settings.low_rank.whiten = !o.no_whiten;
  settings.threads = o.threads;
  BuiltLayer hybrid;
  const std::vector<RepresentationQuality> rows =
      compare_representations(weights, acts.calibration, acts.evaluation, model, settings, &hybrid);

  int experts = 0;
  std::string projections;
  for (const auto& p : hybrid.projections) {
    projections += (projections.empty() ? "" : "+") + p.name;
    experts = p.experts();
  }
  std::printf("represent: layer %d of %s: H %d, I %d, %d experts, %s (model %s)\n", weights.layer,
              weights_description.c_str(), weights.hidden, weights.intermediate, experts, projections.c_str(),
              model.name.c_str());
  std::printf("calibration: %s\n", acts.description.c_str());
  std::printf("k-means: %s, %d iterations at most, seed %llu; low-rank fit %s\n",
              o.train_blocks > 0 ? ("a sample of " + std::to_string(o.train_blocks) + " blocks").c_str() : "all blocks",
              o.iterations, static_cast<unsigned long long>(o.seed), o.no_whiten ? "unwhitened" : "whitened by X Xᵀ");
  std::printf("matched rates: %s\n", kMatchedRateRule);
  std::printf("nmse = Σ‖(Ŵ_e − W_e)ᵀh‖² / Σ‖W_eᵀh‖² over the evaluation tokens, experts and %s\n\n",
              projections.c_str());
  print_table(rows);
  if (!o.out.empty()) {
    write_representation(o.out, hybrid, TensorDtype::bf16, prov.dump());
    std::printf("\nwrote %s (B, J_e, D, C_e of the hybrid, BF16 + U8 indices)\n", o.out.c_str());
  }
  if (!o.json.empty()) {
    nlohmann::json doc = table_json(o, weights, acts, rows);
    doc["provenance"] = prov;
    write_json_file(o.json, doc);
  }
}

}  // namespace

void register_represent_command(CLI::App& app, const Invocation& invocation) {
  auto o = std::make_shared<RepresentOptions>();
  CLI::App* sub = app.add_subcommand(
      "represent", "Build the hybrid LR+VQ representation of one layer and compare its NMSE with VQ-only and LR-only");
  sub->add_option("--model", o->model, "model name (configs/models/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--weights", o->weights,
                  "checkpoint: .safetensors file, index JSON or directory; or synthetic[:size=small|model,hidden=N,"
                  "intermediate=N,experts=N,shared_rank=N,expert_rank=N,shared_scale=X,expert_scale=X,noise_scale=X,"
                  "seed=N] (small: H 256, I 128, 8 experts)")
      ->required();
  sub->add_option("--layer", o->layer, "layer index, 0-based (default: the first MoE layer)")->default_str("-1");
  sub->add_option("--d", o->d, "VQ block length d (must divide H)")->required()->default_str("");
  sub->add_option("--r", o->r, "low-rank dimension r (1..min(H, I))")->required()->default_str("");
  sub->add_option("--K", o->K, "code words per code book (2..256: uint8 indices)")->required()->default_str("");
  sub->add_option("--activations", o->activations,
                  "calibration activations: a .safetensors file with a tensor 'activations' [tokens, H] (the last "
                  "--eval-tokens held out), or synthetic[:tokens=N,spread=X,outliers=N,outlier_scale=X,seed=N]")
      ->capture_default_str();
  sub->add_option("--eval-tokens", o->eval_tokens, "evaluation tokens for NMSE")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--experts", o->experts, "read only the first N experts of a checkpoint (0 = all)")->capture_default_str();
  sub->add_option("--iterations", o->iterations, "k-means iterations at most")->capture_default_str()->check(CLI::Range(1, 1000));
  sub->add_option("--train-blocks", o->train_blocks, "train k-means on a seeded sample of N blocks (0 = all)")
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of k-means and of synthetic inputs")->capture_default_str();
  sub->add_option("--threads", o->threads, "threads (0 = all cores); results do not depend on it")->capture_default_str();
  sub->add_flag("--no-whiten", o->no_whiten, "fit D, C_e without whitening by the activation Gram matrix");
  sub->add_option("--out", o->out, "write the hybrid's B, J_e, D, C_e to FILE.safetensors");
  sub->add_option("--json", o->json, "write the table as JSON to FILE ('-' for stdout)");
  sub->callback([sub, o, &invocation] { run_represent(*sub, invocation, *o); });
}

}  // namespace stasim::cli
