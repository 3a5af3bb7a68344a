// The closed-form low-rank fit (workloads/low_rank_fit.hpp): a planted shared low-rank structure is recovered,
// whitening wins on anisotropic activations, the result does not depend on the thread count.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "workloads/low_rank_fit.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {
namespace {

// Σ_e ‖Xᵀ(R_e − D C_e)‖² / Σ_e ‖Xᵀ R_e‖², the quantity the fit minimizes, normalized.
double weighted_error(const std::vector<Eigen::MatrixXf>& r, const LowRankFit& fit, const Eigen::MatrixXf& x) {
  double error = 0.0, signal = 0.0;
  for (std::size_t e = 0; e < r.size(); ++e) {
    error += (x.transpose() * (r[e] - fit.basis * fit.coefficients[e])).cast<double>().squaredNorm();
    signal += (x.transpose() * r[e]).cast<double>().squaredNorm();
  }
  return error / signal;
}

SyntheticActivationsConfig anisotropic(int hidden, int tokens) {
  SyntheticActivationsConfig a;
  a.hidden = hidden;
  a.tokens = tokens;
  a.channel_spread = 1.5;  // channel scales e^{1.5·N(0,1)}: a spread of ~100× between channels
  a.outlier_channels = 2;
  a.outlier_scale = 30.0;
  return a;
}

TEST(LowRankFit, RecoversPlantedSharedLowRankStructure) {
  // W_e = A·S_e with one basis A (64×6) for all 5 experts: the stacked residual [W_1 … W_5] has rank 6.
  SyntheticWeightsConfig c;
  c.hidden = 64;
  c.intermediate = 24;
  c.experts = 5;
  c.shared_rank = 6;
  c.expert_rank = 0;
  c.noise_scale = 0.0;
  const LayerWeights w = synthetic_layer_weights(c);
  const std::vector<Eigen::MatrixXf>& up = w.find("up")->experts;
  const Eigen::MatrixXf x = synthetic_activations(anisotropic(64, 256));
  LowRankFitConfig config;
  config.rank = 6;
  const LowRankFit fit = low_rank_fit(up, x, config);
  EXPECT_EQ(fit.basis.rows(), 64);
  EXPECT_EQ(fit.basis.cols(), 6);
  ASSERT_EQ(fit.coefficients.size(), 5u);
  EXPECT_EQ(fit.coefficients[0].rows(), 6);
  EXPECT_EQ(fit.coefficients[0].cols(), 24);
  EXPECT_LT(weighted_error(up, fit, x), 1e-6);
  EXPECT_LT(fit.objective_after, 1e-6 * fit.objective_before);
  // One rank fewer cannot represent it: the error jumps by orders of magnitude.
  config.rank = 5;
  EXPECT_GT(weighted_error(up, low_rank_fit(up, x, config), x), 1e-3);
}

TEST(LowRankFit, WhiteningBeatsThePlainFitOnAnisotropicActivations) {
  SyntheticWeightsConfig c;
  c.hidden = 64;
  c.intermediate = 32;
  c.experts = 4;
  c.shared_rank = 16;
  c.expert_rank = 4;
  c.noise_scale = 0.2;
  const std::vector<Eigen::MatrixXf> up = synthetic_layer_weights(c).find("up")->experts;
  const Eigen::MatrixXf x = synthetic_activations(anisotropic(64, 512));
  LowRankFitConfig config;
  config.rank = 8;
  const double whitened = weighted_error(up, low_rank_fit(up, x, config), x);
  config.whiten = false;
  const double plain = weighted_error(up, low_rank_fit(up, x, config), x);
  // The whitened fit is the minimizer of this error; the plain one minimizes ‖R − DC‖ instead.
  EXPECT_LT(whitened, plain);
  EXPECT_LT(whitened, 0.5 * plain) << "whitened " << whitened << ", plain " << plain;
}

TEST(LowRankFit, ObjectiveReportMatchesTheRecomputedError) {
  SyntheticWeightsConfig c;
  c.hidden = 32;
  c.intermediate = 16;
  c.experts = 3;
  const std::vector<Eigen::MatrixXf> up = synthetic_layer_weights(c).find("up")->experts;
  const Eigen::MatrixXf x = synthetic_activations(anisotropic(32, 128));
  LowRankFitConfig config;
  config.rank = 4;
  const LowRankFit fit = low_rank_fit(up, x, config);
  // objective_after/objective_before is the normalized weighted error (up to the 1e-6 ridge and float rounding).
  EXPECT_NEAR(fit.objective_after / fit.objective_before, weighted_error(up, fit, x), 1e-4);
}

TEST(LowRankFit, SameResultWithOneOrTwoThreads) {
  SyntheticWeightsConfig c;
  c.hidden = 32;
  c.intermediate = 16;
  c.experts = 20;  // three groups of ≤ 8 experts for the Gram
  const std::vector<Eigen::MatrixXf> up = synthetic_layer_weights(c).find("up")->experts;
  const Eigen::MatrixXf x = synthetic_activations(anisotropic(32, 64));
  LowRankFitConfig config;
  config.rank = 5;
  config.threads = 1;
  const LowRankFit one = low_rank_fit(up, x, config);
  config.threads = 2;
  const LowRankFit two = low_rank_fit(up, x, config);
  EXPECT_TRUE(one.basis == two.basis);
  for (std::size_t e = 0; e < up.size(); ++e) EXPECT_TRUE(one.coefficients[e] == two.coefficients[e]);
}

TEST(LowRankFit, RankAboveMinOfHAndColumnsIsRejected) {
  const std::vector<Eigen::MatrixXf> r(2, Eigen::MatrixXf::Ones(8, 3));
  LowRankFitConfig config;
  config.rank = 9;  // min(H = 8, E·I = 6) = 6
  try {
    low_rank_fit(r, Eigen::MatrixXf::Ones(8, 4), config);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r = 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stasim
