// `stasim export-weights`: writes one layer's expert weights as a checkpoint under the model's tensor names
// (configs/models/*.yaml `weights:`), one .safetensors file or shards plus an index. Its use: a seeded synthetic
// layer becomes a file that `stasim sweep --weights FILE` (or any reader of HF checkpoints) takes exactly as it
// would take a real model's.
#include <cstdio>

#include "stasim/io.hpp"
#include "stasim/weights.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct ExportOptions {
  std::string model = "qwen3-30b-a3b";
  std::string weights = "synthetic";
  int layer = -1;
  std::string out;
  int shards = 1;
  std::string dtype = "bf16";
};

void run_export(const ExportOptions& o) {
  // Refused before the (possibly long) generation: a device or FIFO as the checkpoint, or an --out that is the
  // model or the weights being read.
  if (o.shards <= 1) require_replaceable(o.out, "the checkpoint");
  check_output_paths({{"--out", o.out}}, {{"--model", model_option("--model", o.model)},
                                          {"--weights", o.weights.rfind("synthetic", 0) == 0 ? "" : o.weights}});
  if (o.shards <= 1) check_output_writable("--out", o.out);
  ModelSpec model = load_model(resolve_model(o.model));
  WeightsSource source = WeightsSource::parse(o.weights);
  if (o.dtype != "bf16" && o.dtype != "f32") throw InputError("--dtype '" + o.dtype + "': expected bf16 or f32");
  if (o.layer < -1) throw InputError("--layer " + std::to_string(o.layer) + ": a layer index is 0 or more (-1: the first MoE layer)");
  if (o.layer >= model.layers)
    throw InputError("--layer " + std::to_string(o.layer) + ": " + model.name + " has " + std::to_string(model.layers) +
                     " layers (0.." + std::to_string(model.layers - 1) + ")");
  const int layer = o.layer >= 0 ? o.layer : first_moe_layer(model);
  if (source.synthetic) {
    // The checkpoint carries the model's names, so it must have the model's shapes: H and I default to the
    // model's, and a fused (stacked) layout needs all E experts.
    SyntheticWeightsConfig& c = source.synthetic_config;
    if (!source.has_key("hidden")) c.hidden = static_cast<int>(model.hidden);
    if (!source.has_key("intermediate")) c.intermediate = static_cast<int>(model.expert_intermediate);
    if (!model.weights.empty() && !pattern_has_expert(model.weights.pattern_of("down")) && !source.has_key("experts"))
      c.experts = static_cast<int>(model.experts);
  }
  std::vector<std::string> projections =
      model.gated ? std::vector<std::string>{"gate", "up", "down"} : std::vector<std::string>{"up", "down"};
  LayerWeights weights = source.load(model, layer, projections);
  write_layer_weights(model, weights, o.out, o.dtype == "bf16" ? TensorDtype::bf16 : TensorDtype::f32, o.shards);
  std::printf("export-weights: %s layer %d, %zu experts × %zu projections (H %d, I %d, %s) from %s; wrote %s%s\n",
              model.name.c_str(), layer, weights.projections.front().experts.size(), weights.projections.size(),
              weights.hidden, weights.intermediate, o.dtype.c_str(), o.weights.c_str(), o.out.c_str(),
              o.shards > 1 ? (" (" + std::to_string(o.shards) + " shards + model.safetensors.index.json)").c_str() : "");
}

}  // namespace

void register_weights_commands(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand("export-weights", "Write one layer's expert weights as a checkpoint under the "
                                                        "model's tensor names (e.g. a synthetic layer)");
  sub->add_option("--model", o->model, "model name or YAML (default qwen3-30b-a3b)");
  sub->add_option("--weights", o->weights,
                  "synthetic[:hidden=..,intermediate=..,experts=8,seed=1,...] (H and I default to the model's) or a "
                  "checkpoint to rewrite");
  sub->add_option("--layer", o->layer, "layer index, 0-based, in the tensor names (default: the first MoE layer)")
      ->default_str("-1");
  sub->add_option("--out", o->out, "a .safetensors file, or a directory when --shards > 1")->required();
  sub->add_option("--shards", o->shards, "split the experts over N files plus model.safetensors.index.json");
  sub->add_option("--dtype", o->dtype, "bf16 (default) or f32");
  sub->callback([o] { run_export(*o); });
}

}  // namespace stasim::cli
