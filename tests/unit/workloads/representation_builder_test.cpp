// Building hybrid / VQ-only / LR-only representations from weights and measuring NMSE
// (workloads/representation_builder.hpp, workloads/matched_rate.hpp).
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/representation_builder.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {
namespace {

SyntheticWeightsConfig small_layer() {
  SyntheticWeightsConfig c;
  c.hidden = 64;
  c.intermediate = 32;
  c.experts = 4;
  c.shared_rank = 12;
  c.expert_rank = 3;
  c.noise_scale = 0.1;
  return c;
}

Eigen::MatrixXf activations(int hidden, int tokens, std::uint64_t seed) {
  SyntheticActivationsConfig a;
  a.hidden = hidden;
  a.tokens = tokens;
  a.seed = seed;
  return synthetic_activations(a);
}

BuildSettings settings_for(const Representation& rep) {
  BuildSettings s;
  s.representation = rep;
  s.kmeans.max_iterations = 10;
  return s;
}

TEST(RepresentationBuilder, HybridHasTheShapesOfDocsCardan) {
  const LayerWeights w = synthetic_layer_weights(small_layer());
  const BuiltLayer built = build_representation(w, activations(64, 128, 5), settings_for(Representation::hybrid(4, 6, 16)));
  ASSERT_EQ(built.projections.size(), 2u);
  EXPECT_EQ(built.projections[0].name, "gate");
  EXPECT_EQ(built.projections[1].name, "up");
  const BuiltProjection& p = *built.find("up");
  EXPECT_EQ(p.experts(), 4);
  EXPECT_EQ(p.codebook.rows(), 16);  // B: K × d
  EXPECT_EQ(p.codebook.cols(), 4);
  EXPECT_EQ(p.index_maps[0].rows(), 64 / 4);  // J_e: (H/d) × I
  EXPECT_EQ(p.index_maps[0].cols(), 32);
  EXPECT_EQ(p.basis.rows(), 64);  // D: H × r
  EXPECT_EQ(p.basis.cols(), 6);
  EXPECT_EQ(p.coefficients[3].rows(), 6);  // C_e: r × I
  EXPECT_EQ(p.coefficients[3].cols(), 32);
  EXPECT_EQ(p.reconstruct(2).rows(), 64);
  EXPECT_EQ(p.reconstruct(2).cols(), 32);
}

TEST(RepresentationBuilder, NmseIsZeroForExactWeightsAndOneForZeroWeights) {
  SyntheticWeightsConfig c = small_layer();
  c.shared_rank = 5;
  c.expert_rank = 0;
  c.noise_scale = 0.0;
  const LayerWeights w = synthetic_layer_weights(c);
  const Eigen::MatrixXf x = activations(64, 128, 5);
  // LR-only with r = the planted rank: NMSE < 1e-6 on held-out tokens too (the structure is exact).
  const BuiltLayer exact = build_representation(w, x, settings_for(Representation::lr_only(5)));
  EXPECT_LT(representation_nmse(w, exact, activations(64, 64, 9)), 1e-6);
  // Zero coefficients: Ŵ = 0, so Σ‖(0 − W)ᵀh‖² / Σ‖Wᵀh‖² = 1 exactly.
  BuiltLayer zero = exact;
  for (auto& p : zero.projections)
    for (auto& coefficients : p.coefficients) coefficients.setZero();
  EXPECT_DOUBLE_EQ(representation_nmse(w, zero, x), 1.0);
}

TEST(RepresentationBuilder, HybridErrorIsAtMostVqOnlyAtTheSameD) {
  const LayerWeights w = synthetic_layer_weights(small_layer());
  const Eigen::MatrixXf x = activations(64, 256, 5);
  const BuiltLayer hybrid = build_representation(w, x, settings_for(Representation::hybrid(4, 8, 16)));
  const BuiltLayer vq = build_representation(w, x, settings_for(Representation::vq_only(4, 16)));
  // Same seed, same blocks: the same code book and index maps; the fit then only lowers the error it minimizes.
  // Evaluated on the calibration tokens, where that guarantee holds (D = 0 is one of the candidates).
  EXPECT_TRUE(hybrid.projections[0].codebook == vq.projections[0].codebook);
  const double hybrid_nmse = representation_nmse(w, hybrid, x);
  const double vq_nmse = representation_nmse(w, vq, x);
  EXPECT_LE(hybrid_nmse, vq_nmse);
  EXPECT_LT(hybrid_nmse, 0.9 * vq_nmse) << "hybrid " << hybrid_nmse << ", VQ-only " << vq_nmse;
}

TEST(RepresentationBuilder, SameSeedSameBitsWithOneOrTwoThreads) {
  SyntheticWeightsConfig c = small_layer();
  c.experts = 12;  // k-means chunks: one per expert; Gram groups: 8 + 4
  const LayerWeights w = synthetic_layer_weights(c);
  const Eigen::MatrixXf x = activations(64, 128, 5);
  BuildSettings s = settings_for(Representation::hybrid(4, 6, 32));
  s.threads = 1;
  const BuiltLayer one = build_representation(w, x, s);
  s.threads = 2;
  const BuiltLayer two = build_representation(w, x, s);
  for (std::size_t i = 0; i < one.projections.size(); ++i) {
    const BuiltProjection& a = one.projections[i];
    const BuiltProjection& b = two.projections[i];
    EXPECT_TRUE(a.codebook == b.codebook);
    EXPECT_TRUE(a.basis == b.basis);
    for (int e = 0; e < a.experts(); ++e) {
      EXPECT_TRUE(a.index_maps[e] == b.index_maps[e]);
      EXPECT_TRUE(a.coefficients[e] == b.coefficients[e]);
    }
  }
  EXPECT_EQ(representation_nmse(w, one, x, 1), representation_nmse(w, two, x, 2));
}

TEST(RepresentationBuilder, BadShapesNameTheKey) {
  const LayerWeights w = synthetic_layer_weights(small_layer());  // H = 64, I = 32
  const Eigen::MatrixXf x = activations(64, 32, 5);
  auto message = [&](const Representation& rep) {
    try {
      build_representation(w, x, settings_for(rep));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(Representation::hybrid(7, 4, 16)).find("d = 7 does not divide hidden H = 64"), std::string::npos);
  EXPECT_NE(message(Representation::hybrid(4, 4, 300)).find("K = 300 is outside 2..256"), std::string::npos);
  EXPECT_NE(message(Representation::hybrid(4, 33, 16)).find("r = 33 is outside 0..32"), std::string::npos);
  EXPECT_NE(message(Representation::dense_bf16()).find("cannot be built"), std::string::npos);
  BuildSettings s = settings_for(Representation::hybrid(4, 4, 16));
  EXPECT_THROW(build_representation(w, activations(32, 16, 5), s), InputError);  // X has H = 32 rows
}

// Qwen3-30B-A3B shapes: H = 2048, I = 768, E = 128.
ModelSpec qwen3_shape() { return with_layer_shape(ModelSpec{}, 2048, 768, 128); }

TEST(MatchedRate, LrOnlyTakesTheNearestRank) {
  // hybrid(8, 384, 256): 1 + 3 + 16·(256·8 + 2048·384)/(128·2048·768) = 4.0626628 bits/weight.
  // LR-only: r·(16/2048 + 16·2048/(128·2048·768)) = r·0.0079752604; 4.0626628/0.0079752604 = 509.41
  // → r' = 509 (4.0594076, 0.0033 below) rather than 510 (4.0673828, 0.0047 above).
  const Representation lr = matched_lr_only(Representation::hybrid(8, 384, 256), qwen3_shape());
  EXPECT_EQ(lr.kind, RepresentationKind::lr_only);
  EXPECT_EQ(lr.r, 509);
  EXPECT_NEAR(lr.bits_per_weight(qwen3_shape()), 509 * (16.0 / 2048 + 16.0 / (128.0 * 768)), 1e-12);
}

TEST(MatchedRate, VqOnlyTakesTheNearestBlockLength) {
  // VQ-only with K = 256: 8/d' + 16·256·d'/(128·2048·768): d' = 2 → 4.0000407, d' = 1 → 8.00002, d' = 4 → 2.00008;
  // the hybrid's 4.0627 is nearest d' = 2.
  const Representation vq = matched_vq_only(Representation::hybrid(8, 384, 256), qwen3_shape());
  EXPECT_EQ(vq.kind, RepresentationKind::vq_only);
  EXPECT_EQ(vq.d, 2);
  EXPECT_EQ(vq.K, 256);
  EXPECT_NEAR(vq.bits_per_weight(qwen3_shape()), 4.0 + 16.0 * 512 / 201326592.0, 1e-12);
}

TEST(CompareRepresentations, ThreeRowsAtMatchedRates) {
  const LayerWeights w = synthetic_layer_weights(small_layer());  // H 64, I 32, E 4
  const Eigen::MatrixXf calibration = activations(64, 256, 5);
  const Eigen::MatrixXf evaluation = activations(64, 64, 6);
  BuildSettings s = settings_for(Representation::hybrid(8, 8, 16));
  const auto rows = compare_representations(w, calibration, evaluation, ModelSpec{}, s);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].representation, "hybrid");
  EXPECT_EQ(rows[1].representation, "vq_only");
  EXPECT_EQ(rows[2].representation, "lr_only");
  // Indices are stored as uint8 whatever K (Representation::index_bits = 8).
  // hybrid(8, 8, 16) on H 64, I 32, E 4: 8/8 + 16·8/64 + 16·(16·8 + 64·8)/(4·64·32) = 1 + 2 + 1.25 = 4.25.
  EXPECT_DOUBLE_EQ(rows[0].bits_per_weight, 4.25);
  // VQ-only, K = 16: 8/d' + 16·16·d'/8192: d' = 1 → 8.03125, d' = 2 → 4.0625 (gap 0.1875), d' = 4 → 2.125.
  EXPECT_EQ(rows[1].d, 2);
  EXPECT_DOUBLE_EQ(rows[1].bits_per_weight, 4.0625);
  // LR-only: r·(16/64 + 16/(4·32)) = 0.375·r: r' = 11 → 4.125 (gap 0.125), r' = 12 → 4.5 (gap 0.25).
  EXPECT_EQ(rows[2].r, 11);
  EXPECT_DOUBLE_EQ(rows[2].bits_per_weight, 4.125);
  for (const auto& q : rows) {
    EXPECT_GT(q.nmse, 0.0);
    EXPECT_LT(q.nmse, 1.0);
  }
}

}  // namespace
}  // namespace stasim
