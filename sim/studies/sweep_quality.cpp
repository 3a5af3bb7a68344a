#include "sim/studies/sweep_quality.hpp"

#include <cstdio>

#include "sim/core/input_error.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/representation_builder.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {

SweepQuality::SweepQuality(WeightsSource source, std::int64_t layer, int threads)
    : source_(std::move(source)), layer_(layer), threads_(threads) {}

int SweepQuality::layer_index(const ModelSpec& model) const {
  return layer_ >= 0 ? static_cast<int>(layer_) : first_moe_layer(model);
}

std::string SweepQuality::label(const ModelSpec& model) const {
  std::string experts = !source_.synthetic && source_.experts > 0 ? "/experts=" + std::to_string(source_.experts) : "";
  return source_.text + "@" + std::to_string(layer_index(model)) + experts;
}

const SweepQuality::Layer& SweepQuality::layer_of(const ModelSpec& model) {
  auto it = layers_.find(model.name);
  if (it != layers_.end()) return *it->second;
  auto layer = std::make_unique<Layer>();
  std::vector<std::string> projections = model.gated ? std::vector<std::string>{"gate", "up"} : std::vector<std::string>{"up"};
  layer->weights = source_.load(model, layer_index(model), projections);
  // The same calibration and evaluation tokens as `stasim represent` with its default --seed 1.
  SyntheticActivationsConfig activations;
  activations.hidden = layer->weights.hidden;
  activations.tokens = source_.tokens;
  activations.seed = 1 + kActivationSeedOffset;
  ActivationSamples samples = synthetic_activation_samples(activations, kEvaluationTokens);
  layer->calibration = std::move(samples.calibration);
  layer->evaluation = std::move(samples.evaluation);
  return *layers_.emplace(model.name, std::move(layer)).first->second;
}

LayerQuality SweepQuality::quality(const ModelSpec& model, const Representation& rep) {
  if (rep.kind == RepresentationKind::dense_bf16) return {0.0, 16.0};
  const std::string key = model.name + "|" + rep.describe();
  auto it = built_.find(key);
  if (it != built_.end()) return it->second;
  const Layer& layer = layer_of(model);
  const int experts = static_cast<int>(layer.weights.projections.front().experts.size());
  ModelSpec shape = with_layer_shape(model, layer.weights.hidden, layer.weights.intermediate, experts);
  BuildSettings settings;
  settings.representation = rep;
  settings.threads = threads_;
  BuiltLayer built = build_representation(layer.weights, layer.calibration, settings);
  LayerQuality q{representation_nmse(layer.weights, built, layer.evaluation, threads_), rep.bits_per_weight(shape)};
  std::fprintf(stderr, "quality: %s on %s layer %d (H %d, I %d, E %d): nmse %.6g at %.4f bits/weight\n",
               rep.describe().c_str(), model.name.c_str(), layer.weights.layer, layer.weights.hidden,
               layer.weights.intermediate, experts, q.nmse, q.bits_per_weight);
  built_[key] = q;
  return q;
}

}  // namespace stasim
