// The closed-form low-rank fit of docs/cardan.md: given the residuals R_e (H×I, e.g. W_e − Q_B(J_e)) of one
// projection of one layer and calibration activations X (H×n), the basis D (H×r) shared by the experts and the
// coefficients C_e (r×I) minimizing Σ_e ‖Xᵀ(R_e − D·C_e)‖²_F. The derivation is at low_rank_fit's definition.
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace stasim {

struct LowRankFitConfig {
  int rank = 384;              // r
  bool whiten = true;          // false: the plain fit Σ_e ‖R_e − D·C_e‖²_F (as if X Xᵀ were the identity)
  double ridge = 1e-6;         // added to the Gram X Xᵀ as ridge · trace(X Xᵀ)/H · I, so it is invertible
  int threads = 0;             // 0: the CPUs this process may use (affinity); the result does not depend on it
};

struct LowRankFit {
  Eigen::MatrixXf basis;                      // D: H × r
  std::vector<Eigen::MatrixXf> coefficients;  // C_e: r × I per expert
  // Σ_e ‖Xᵀ R_e‖²_F before and Σ_e ‖Xᵀ(R_e − D C_e)‖²_F after the fit (whitened objective; plain when !whiten).
  double objective_before = 0.0;
  double objective_after = 0.0;
};

// Throws InputError when rank > min(H, I·E), rank < 0 or X has a row count other than H.
LowRankFit low_rank_fit(const std::vector<Eigen::MatrixXf>& residuals, const Eigen::MatrixXf& activations,
                        const LowRankFitConfig& config);

}  // namespace stasim
