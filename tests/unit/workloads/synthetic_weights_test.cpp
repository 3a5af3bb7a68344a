// The seeded synthetic layer and activations (workloads/synthetic_weights.hpp).
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {
namespace {

TEST(SyntheticWeights, ShapesAndDeterminism) {
  SyntheticWeightsConfig c;
  c.hidden = 32;
  c.intermediate = 16;
  c.experts = 3;
  c.with_down = true;
  const LayerWeights a = synthetic_layer_weights(c, 2);
  EXPECT_EQ(a.layer, 2);
  ASSERT_EQ(a.projections.size(), 3u);
  EXPECT_EQ(a.find("gate")->experts.size(), 3u);
  EXPECT_EQ(a.find("up")->experts[0].rows(), 32);
  EXPECT_EQ(a.find("up")->experts[0].cols(), 16);
  EXPECT_EQ(a.find("down")->experts[0].rows(), 16);  // down: I × H
  const LayerWeights b = synthetic_layer_weights(c, 2);
  EXPECT_TRUE(a.find("gate")->experts[1] == b.find("gate")->experts[1]);
  EXPECT_FALSE(a.find("gate")->experts[1] == synthetic_layer_weights(c, 3).find("gate")->experts[1]);
  c.seed = 9;
  EXPECT_FALSE(a.find("gate")->experts[1] == synthetic_layer_weights(c, 2).find("gate")->experts[1]);
  c.gated = false;
  EXPECT_EQ(synthetic_layer_weights(c).find("gate"), nullptr);
}

TEST(SyntheticWeights, SharedStructureOnlyIsLowRank) {
  SyntheticWeightsConfig c;
  c.hidden = 40;
  c.intermediate = 20;
  c.experts = 2;
  c.shared_rank = 3;
  c.expert_rank = 0;
  c.noise_scale = 0.0;
  const LayerWeights w = synthetic_layer_weights(c);
  const auto& up = w.find("up")->experts;
  Eigen::MatrixXf stacked(40, 40);
  stacked << up[0], up[1];
  Eigen::JacobiSVD<Eigen::MatrixXf> svd(stacked);
  EXPECT_GT(svd.singularValues()(2), 1e-2f);
  EXPECT_LT(svd.singularValues()(3), 1e-5f * svd.singularValues()(0));
}

TEST(SyntheticActivations, OutlierChannelsAreLarger) {
  SyntheticActivationsConfig a;
  a.hidden = 16;
  a.tokens = 2000;
  a.channel_spread = 0.0;  // isotropic except the outliers
  a.outlier_channels = 2;  // channels 0 and 8
  a.outlier_scale = 10.0;
  const Eigen::MatrixXf x = synthetic_activations(a);
  const Eigen::VectorXf rms = (x.array().square().rowwise().mean()).sqrt();
  EXPECT_NEAR(rms(0), 10.0f, 0.7f);
  EXPECT_NEAR(rms(8), 10.0f, 0.7f);
  EXPECT_NEAR(rms(3), 1.0f, 0.07f);
}

TEST(SyntheticWeights, BadConfigListsEveryProblem) {
  SyntheticWeightsConfig c;
  c.hidden = 0;
  c.noise_scale = -1;
  try {
    synthetic_layer_weights(c);
    FAIL();
  } catch (const InputError& e) {
    ASSERT_EQ(e.problems().size(), 2u);
    EXPECT_NE(e.problems()[0].find("synthetic.hidden"), std::string::npos);
    EXPECT_NE(e.problems()[1].find("synthetic.noise_scale"), std::string::npos);
  }
}

}  // namespace
}  // namespace stasim
