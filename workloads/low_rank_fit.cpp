#include "workloads/low_rank_fit.hpp"

#include <algorithm>
#include <string>

#include "sim/core/input_error.hpp"
#include "workloads/parallel_chunks.hpp"

namespace stasim {
namespace {

// Experts per partial Gram. Fixed, so the order of the floating-point sums never depends on the thread count.
constexpr int kExpertsPerGroup = 8;

// M = Σ_e R_e R_eᵀ (H×H, only the lower triangle is filled): float symmetric rank updates per group of
// experts, the groups' partials summed in group order in double.
Eigen::MatrixXd residual_gram(const std::vector<Eigen::MatrixXf>& residuals, int threads) {
  const Eigen::Index H = residuals.front().rows();
  const std::int64_t groups = (static_cast<std::int64_t>(residuals.size()) + kExpertsPerGroup - 1) / kExpertsPerGroup;
  std::vector<Eigen::MatrixXf> partial(groups);
  parallel_chunks(groups, threads, [&](std::int64_t g) {
    Eigen::MatrixXf m = Eigen::MatrixXf::Zero(H, H);
    const std::size_t end = std::min(residuals.size(), static_cast<std::size_t>((g + 1) * kExpertsPerGroup));
    for (std::size_t e = static_cast<std::size_t>(g * kExpertsPerGroup); e < end; ++e)
      m.selfadjointView<Eigen::Lower>().rankUpdate(residuals[e]);
    partial[g] = std::move(m);
  });
  Eigen::MatrixXd total = Eigen::MatrixXd::Zero(H, H);
  for (auto& m : partial) {
    total.triangularView<Eigen::Lower>() += m.cast<double>();
    m.resize(0, 0);
  }
  return total;
}

}  // namespace

// The fit. For one projection, with residuals R_e (H×I) and calibration activations X (H×n), minimize
//
//     f(D, C_1..C_E) = Σ_e ‖Xᵀ (R_e − D C_e)‖²_F ,   D ∈ R^{H×r} shared, C_e ∈ R^{r×I} per expert.
//
// 1. Whitening. Let G = X Xᵀ + λI = L Lᵀ (Cholesky; λ = ridge · trace(X Xᵀ)/H keeps G invertible when n < H
//    or channels are dead, and adds λ Σ_e ‖R_e − D C_e‖²_F to f, negligible for small ridge). For any M,
//    ‖Xᵀ M‖²_F = tr(Mᵀ X Xᵀ M) ≈ tr(Mᵀ G M) = ‖Lᵀ M‖²_F. With Y_e = Lᵀ R_e and U = Lᵀ D (a bijection between D
//    and U since L is invertible):  f = Σ_e ‖Y_e − U C_e‖²_F = ‖Y − U C‖²_F  with Y = [Y_1 … Y_E] (H × E·I) and
//    C = [C_1 … C_E] (r × E·I).
// 2. Eckart–Young. U C is any matrix of rank ≤ r, so the minimum is the truncated SVD of Y: U = V_r, the r
//    leading left singular vectors of Y, and C = V_rᵀ Y. They are the leading eigenvectors of
//    Y Yᵀ = Lᵀ (Σ_e R_e R_eᵀ) L = Lᵀ M L, an H×H symmetric matrix: only the Gram M of the stacked residuals is
//    ever formed (a symmetric rank update per expert), never Y itself.
// 3. Back-substitution. D = L⁻ᵀ V_r (a triangular solve) and C_e = V_rᵀ Lᵀ R_e = P R_e with P = V_rᵀ Lᵀ (r×H).
//    Check: Lᵀ D C_e = V_r V_rᵀ Y_e, the projection of Y_e on the leading subspace.
// The minimum value is tr(Lᵀ M L) − (sum of the r leading eigenvalues); objective_before = tr(Lᵀ M L).
// Without whitening, L = I and this is the plain truncated SVD of the stacked residuals.
LowRankFit low_rank_fit(const std::vector<Eigen::MatrixXf>& residuals, const Eigen::MatrixXf& activations,
                        const LowRankFitConfig& config) {
  if (residuals.empty()) throw InputError("low-rank fit: no experts");
  const Eigen::Index H = residuals.front().rows();
  const Eigen::Index I = residuals.front().cols();
  const Eigen::Index columns = I * static_cast<Eigen::Index>(residuals.size());
  for (const auto& r : residuals)
    if (r.rows() != H || r.cols() != I) throw InputError("low-rank fit: experts differ in shape");
  if (config.rank < 0 || config.rank > std::min<Eigen::Index>(H, columns))
    throw InputError("r = " + std::to_string(config.rank) + " must be in [0, min(H, E·I)] = [0, " +
                     std::to_string(std::min<Eigen::Index>(H, columns)) + "]");
  if (config.whiten && activations.rows() != H)
    throw InputError("activations have " + std::to_string(activations.rows()) + " rows, the weights H = " +
                     std::to_string(H));
  if (!(config.ridge > 0)) throw InputError("low-rank fit: ridge must be > 0");
  const int threads = resolve_threads(config.threads);
  const int r = config.rank;

  LowRankFit fit;
  fit.basis = Eigen::MatrixXf::Zero(H, r);
  fit.coefficients.assign(residuals.size(), Eigen::MatrixXf::Zero(r, I));

  const Eigen::MatrixXd M = residual_gram(residuals, threads);  // lower triangle
  Eigen::MatrixXd L = Eigen::MatrixXd::Identity(H, H);
  if (config.whiten) {
    Eigen::MatrixXf gram_f = Eigen::MatrixXf::Zero(H, H);
    gram_f.selfadjointView<Eigen::Lower>().rankUpdate(activations);
    Eigen::MatrixXd G = gram_f.cast<double>().selfadjointView<Eigen::Lower>();
    const double lambda = config.ridge * std::max(G.trace() / static_cast<double>(H), 1e-30);
    G.diagonal().array() += lambda;
    Eigen::LLT<Eigen::MatrixXd> cholesky(G);
    if (cholesky.info() != Eigen::Success) throw InputError("low-rank fit: the activation Gram matrix is not positive definite");
    L = cholesky.matrixL();
  }
  // T = Lᵀ M L (float: the eigen-solver below runs in float, ~3× faster than double at H = 2048).
  Eigen::MatrixXf T;
  {
    const Eigen::MatrixXf Lf = L.cast<float>();
    const Eigen::MatrixXf Mf = M.cast<float>().selfadjointView<Eigen::Lower>();
    Eigen::MatrixXf ML = Mf * Lf.triangularView<Eigen::Lower>();
    T.noalias() = Lf.triangularView<Eigen::Lower>().transpose() * ML;
  }
  fit.objective_before = T.cast<double>().trace();
  fit.objective_after = fit.objective_before;
  if (r == 0) return fit;

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXf> eigen(T);  // reads the lower triangle; eigenvalues ascending
  if (eigen.info() != Eigen::Success) throw SimulationError("low-rank fit: eigen-decomposition did not converge");
  Eigen::MatrixXd V(H, r);  // leading eigenvectors, largest first
  double captured = 0.0;
  for (int k = 0; k < r; ++k) {
    V.col(k) = eigen.eigenvectors().col(H - 1 - k).cast<double>();
    captured += std::max(0.0, static_cast<double>(eigen.eigenvalues()(H - 1 - k)));
  }
  fit.objective_after = std::max(0.0, fit.objective_before - captured);

  fit.basis = L.transpose().triangularView<Eigen::Upper>().solve(V).cast<float>();  // D = L⁻ᵀ V_r
  const Eigen::MatrixXf P = (V.transpose() * L.transpose().triangularView<Eigen::Upper>()).cast<float>();  // V_rᵀ Lᵀ
  parallel_chunks(static_cast<std::int64_t>(residuals.size()), threads,
                  [&](std::int64_t e) { fit.coefficients[e].noalias() = P * residuals[e]; });
  return fit;
}

}  // namespace stasim
