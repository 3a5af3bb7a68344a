// A seeded synthetic MoE layer's expert weights with the structure the hybrid representation exploits, for tests
// and demos (no model weights can be downloaded here): W_e = A·S_e (a basis A shared by all experts with
// expert-specific mixing S_e) + U_e·V_eᵀ (an expert-private low-rank part) + noise. And synthetic anisotropic
// calibration activations (per-channel log-normal scales plus a few outlier channels, as LLM hidden states have).
// Same seed, same floats on any machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "workloads/expert_weights.hpp"

namespace stasim {

struct SyntheticWeightsConfig {
  int hidden = 256;          // H
  int intermediate = 128;    // I
  int experts = 8;           // E
  int shared_rank = 32;      // columns of the shared basis A (H × shared_rank)
  int expert_rank = 4;       // rank of each expert's private part U_e·V_eᵀ
  double shared_scale = 1.0;  // RMS of the shared part's entries
  double expert_scale = 0.3;  // RMS of the private low-rank part's entries
  double noise_scale = 0.1;   // RMS of the i.i.d. Gaussian noise
  bool gated = true;          // gate and up (false: up only)
  bool with_down = false;     // also a down projection (I × H, unstructured Gaussian; it stays dense)
  std::uint64_t seed = 1;

  // Every problem at once ("synthetic.hidden must be > 0", ...); empty when valid.
  std::vector<std::string> problems() const;
};

// Throws InputError listing config.problems(). Weights are scaled by 1/sqrt(H) so Wᵀh keeps h's magnitude.
LayerWeights synthetic_layer_weights(const SyntheticWeightsConfig& config, int layer = 0);

struct SyntheticActivationsConfig {
  int hidden = 256;             // H
  int tokens = 512;             // n (columns)
  double channel_spread = 1.0;  // σ of log(channel scale): 0 gives isotropic activations
  int outlier_channels = 4;     // channels whose scale is multiplied by outlier_scale
  double outlier_scale = 20.0;
  std::uint64_t seed = 2;

  std::vector<std::string> problems() const;
};

// X ∈ R^{H×n}: column t is one token's hidden state. Throws InputError listing config.problems().
Eigen::MatrixXf synthetic_activations(const SyntheticActivationsConfig& config);

}  // namespace stasim
