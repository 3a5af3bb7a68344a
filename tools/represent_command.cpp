// `stasim represent`: builds the hybrid LR+VQ representation of one layer's gate/up expert weights (a checkpoint
// or a seeded synthetic layer), and prints bits/weight and NMSE of hybrid, VQ-only and LR-only at matched storage
// rates (workloads/matched_rate.hpp); optionally writes B, J_e, D, C_e to a .safetensors file.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "stasim/io.hpp"
#include "stasim/reports.hpp"
#include "stasim/stasim.hpp"
#include "stasim/weights.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

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
  const ActivationSamples acts = load_activations(o.activations, weights.hidden, o.eval_tokens, o.seed);

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
  print_representation_table(stdout, rows);
  if (!o.out.empty()) {
    write_representation(o.out, hybrid, TensorDtype::bf16, prov.dump());
    std::printf("\nwrote %s (B, J_e, D, C_e of the hybrid, BF16 + U8 indices)\n", o.out.c_str());
  }
  if (!o.json.empty()) {
    nlohmann::json doc = representation_table_json(o.weights, weights, acts, rows);
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
