// Where a command's expert weights come from: `--weights` names a checkpoint (a .safetensors file, a sharded
// set's index JSON, or a directory of either; tensor names from the model YAML's `weights:` patterns) or a
// seeded synthetic layer, "synthetic" or "synthetic:hidden=256,intermediate=128,experts=8,seed=1,..." (the
// keys of SyntheticWeightsConfig, size=small|model, and tokens: the calibration tokens `stasim sweep` draws).
// `stasim represent`, `stasim export-weights` and `stasim sweep --weights` all read --weights through it, and
// represent and sweep draw their synthetic activations with synthetic_activation_samples, so one layer gets
// one NMSE in both commands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "workloads/expert_weights.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {

// Defaults of the synthetic activations: calibration tokens, held-out evaluation tokens, and the seed offset
// from the command's seed (calibration seed + 1000, evaluation seed + 1001).
inline constexpr int kCalibrationTokens = 2048;
inline constexpr int kEvaluationTokens = 256;
inline constexpr std::uint64_t kActivationSeedOffset = 1000;

struct WeightsSource {
  std::string text;  // as given
  bool synthetic = false;
  bool model_size = false;  // size=model: H, I and E of the model unless hidden/intermediate/experts are given
  SyntheticWeightsConfig synthetic_config;  // gated is taken from the model
  std::vector<std::string> synthetic_keys;  // the keys the text set (e.g. to tell a default from a choice)
  int tokens = kCalibrationTokens;
  int experts = 0;  // checkpoint: read only the first that many experts (0 = all)

  // InputError naming the key for an unknown synthetic key or a value that is not a number.
  static WeightsSource parse(const std::string& text);
  bool has_key(const std::string& key) const;

  // The layer's experts (synthetic: generated with the model's gating; checkpoint: read and shape-checked).
  LayerWeights load(const ModelSpec& model, int layer, const std::vector<std::string>& projections) const;
};

struct ActivationSamples {
  Eigen::MatrixXf calibration, evaluation;  // H × tokens
  std::string description;
};

// Calibration tokens drawn with `calibration` and `evaluation_tokens` held-out tokens from the same
// distribution with the next seed.
ActivationSamples synthetic_activation_samples(SyntheticActivationsConfig calibration, int evaluation_tokens);

// The model's first layer with routed experts (the default of --layer / --weights-layer).
int first_moe_layer(const ModelSpec& model);

}  // namespace stasim
