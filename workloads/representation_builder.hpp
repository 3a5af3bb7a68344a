// Builds the hybrid LR+VQ representation (and its VQ-only and LR-only ablations) of one layer's gate/up expert
// weights, and measures its quality: product quantization (B, J_e), then the closed-form low-rank fit of the VQ
// residual (D, C_e) on calibration activations, then NMSE on evaluation activations. compare_representations
// puts hybrid, VQ-only and LR-only side by side at matched storage rates (workloads/matched_rate.hpp).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "workloads/expert_weights.hpp"
#include "workloads/low_rank_fit.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/product_quantizer.hpp"
#include "workloads/representation.hpp"

namespace stasim {

// One compressed projection: W_e ≈ Q_B(J_e) + D·C_e. A VQ-only projection has r = 0 (basis H×0, no
// coefficients); an LR-only one has d = 0 and K = 0 (empty code book, no index maps).
struct BuiltProjection {
  std::string name;                           // "gate" or "up"
  int d = 0;
  int r = 0;
  int K = 0;
  Eigen::MatrixXf codebook;                   // B: K × d
  std::vector<IndexMap> index_maps;           // J_e: (H/d) × I, uint8
  Eigen::MatrixXf basis;                      // D: H × r
  std::vector<Eigen::MatrixXf> coefficients;  // C_e: r × I

  int experts() const;
  // Ŵ_e = Q_B(J_e) + D·C_e (H × I).
  Eigen::MatrixXf reconstruct(int expert) const;
};

struct BuiltLayer {
  int layer = 0;
  int hidden = 0;        // H
  int intermediate = 0;  // I
  Representation representation;
  std::vector<BuiltProjection> projections;  // gate (when gated and compressed), up

  const BuiltProjection* find(const std::string& name) const;
};

struct BuildSettings {
  Representation representation = Representation::hybrid(8, 384, 256);  // hybrid, vq_only or lr_only
  KMeansConfig kmeans;   // clusters is taken from representation.K
  LowRankFitConfig low_rank;  // rank is taken from representation.r
  int threads = 0;       // 0: hardware concurrency; overrides kmeans.threads and low_rank.threads
};

// Phase wall times of one build, and the process CPU time (all threads) of each phase, for the benchmark: on a
// shared machine the CPU time is the steadier figure.
struct BuildTimings {
  double kmeans_seconds = 0.0;
  double residual_seconds = 0.0;
  double low_rank_seconds = 0.0;
  double kmeans_cpu_seconds = 0.0;
  double residual_cpu_seconds = 0.0;
  double low_rank_cpu_seconds = 0.0;
};

// Compresses the gate and up projections the representation selects (down stays dense and is not built).
// Throws InputError naming the key (d, K, r) when the representation does not fit the weights' shapes, or when
// the calibration activations do not have H rows.
BuiltLayer build_representation(const LayerWeights& weights, const Eigen::MatrixXf& calibration_activations,
                                const BuildSettings& settings, BuildTimings* timings = nullptr);

// Σ‖(Ŵ_e − W_e)ᵀh‖² / Σ‖W_eᵀh‖² over the evaluation tokens (columns of activations), all experts and all built
// projections.
double representation_nmse(const LayerWeights& weights, const BuiltLayer& built,
                           const Eigen::MatrixXf& evaluation_activations, int threads = 0);

struct RepresentationQuality {
  std::string representation;  // "hybrid", "vq_only" or "lr_only"
  Representation spec;
  int d = 0;
  int r = 0;
  int K = 0;
  double bits_per_weight = 0.0;  // Representation::bits_per_weight on the layer's shapes (H, I, E)
  double nmse = 0.0;
  double build_seconds = 0.0;
};

// Three rows: the hybrid of settings.representation, then VQ-only and LR-only at the storage rate matched to
// it (matched_vq_only / matched_lr_only). Rates use the weights' shapes (H, I, E) through with_layer_shape(model,
// ...), so a small synthetic layer is rated as itself; the model supplies nothing else the rate needs.
// hybrid_out, when given, receives the built hybrid (to write it out without building it twice).
std::vector<RepresentationQuality> compare_representations(const LayerWeights& weights,
                                                           const Eigen::MatrixXf& calibration_activations,
                                                           const Eigen::MatrixXf& evaluation_activations,
                                                           const ModelSpec& model, const BuildSettings& settings,
                                                           BuiltLayer* hybrid_out = nullptr);

}  // namespace stasim
