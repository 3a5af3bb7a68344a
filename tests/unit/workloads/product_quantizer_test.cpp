// k-means and product quantization (workloads/product_quantizer.hpp): planted clusters are recovered exactly,
// results do not depend on the thread count, bad parameters are named.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/core/input_error.hpp"
#include "workloads/code_word_search.hpp"
#include "workloads/product_quantizer.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

// 16 clusters in R^4: centre k has coordinates 10·(bit j of k) + 3·j, so two centres are ≥ 10 apart, and each
// point is its centre plus uniform noise in ±0.05 (cluster radius ≤ 0.1 ≪ 10). 40 points per cluster,
// interleaved (point i belongs to cluster i mod 16).
Eigen::MatrixXf planted_points(Eigen::MatrixXf* centres) {
  SeededRandom random(7);
  const int clusters = 16, per_cluster = 40, d = 4;
  centres->resize(d, clusters);
  for (int k = 0; k < clusters; ++k)
    for (int j = 0; j < d; ++j) (*centres)(j, k) = 10.0f * ((k >> j) & 1) + 3.0f * j;
  Eigen::MatrixXf points(d, clusters * per_cluster);
  for (int i = 0; i < points.cols(); ++i)
    for (int j = 0; j < d; ++j)
      points(j, i) = (*centres)(j, i % clusters) + static_cast<float>(0.1 * random.unit() - 0.05);
  return points;
}

TEST(KMeans, RecoversPlantedClustersExactly) {
  Eigen::MatrixXf centres;
  const Eigen::MatrixXf points = planted_points(&centres);
  KMeansConfig config;
  config.clusters = 16;
  const KMeansResult result = kmeans(points, config);
  // The found partition is the planted one: one label per planted cluster, 16 distinct labels.
  std::map<int, int> label_of_cluster;
  for (int i = 0; i < points.cols(); ++i) {
    const int cluster = i % 16;
    auto [it, inserted] = label_of_cluster.emplace(cluster, result.labels[i]);
    EXPECT_EQ(it->second, result.labels[i]) << "point " << i;
  }
  std::set<int> labels;
  for (const auto& [cluster, label] : label_of_cluster) labels.insert(label);
  EXPECT_EQ(labels.size(), 16u);
  // Each centroid is its cluster's mean, within the noise (±0.05).
  for (const auto& [cluster, label] : label_of_cluster)
    EXPECT_LT((result.centroids.col(label) - centres.col(cluster)).cwiseAbs().maxCoeff(), 0.05f);
  // Mean squared distance: at most d·0.05² = 0.01 per point.
  EXPECT_LT(result.mse, 0.01);
}

TEST(KMeans, SameSeedSameResultWithOneOrTwoThreads) {
  SeededRandom random(3);
  Eigen::MatrixXf points(2, 40000);  // 5 chunks of 8192 points
  for (int i = 0; i < points.size(); ++i) points.data()[i] = static_cast<float>(random.unit());
  KMeansConfig config;
  config.clusters = 32;
  config.max_iterations = 5;
  config.threads = 1;
  const KMeansResult one = kmeans(points, config);
  config.threads = 2;
  const KMeansResult two = kmeans(points, config);
  EXPECT_EQ(one.labels, two.labels);
  EXPECT_TRUE(one.centroids == two.centroids);
  EXPECT_EQ(one.mse, two.mse);
  config.seed = 2;
  const KMeansResult other_seed = kmeans(points, config);
  EXPECT_FALSE(one.centroids == other_seed.centroids);
}

TEST(CodeWordSearch, TiesGoToTheLowestIndex) {
  // 13 code words in R^3 (not a multiple of 4: the padding must never win): k·(1, 1, 1), except that 5 and 11 are the same word (2, 0, 1).
  Eigen::MatrixXf c(3, 13);
  for (int k = 0; k < 13; ++k) c.col(k).setConstant(static_cast<float>(k));
  c.col(5) << 2, 0, 1;
  c.col(11) << 2, 0, 1;
  const float on_duplicate[3] = {2, 0, 1};
  const float near_twelve[3] = {11.9f, 12.2f, 12.0f};
  const CodeWordSearch search(c);
  EXPECT_EQ(search.nearest(on_duplicate), 5);
  EXPECT_EQ(search.nearest(near_twelve), 12);
}

TEST(KMeans, TrainingOnASampleStillAssignsEveryPoint) {
  Eigen::MatrixXf centres;
  const Eigen::MatrixXf points = planted_points(&centres);  // 640 points
  KMeansConfig config;
  config.clusters = 16;
  config.training_points = 320;  // the 16 clusters are all in a 320-draw sample (P(miss one) ≈ 16·e^-20)
  const KMeansResult result = kmeans(points, config);
  ASSERT_EQ(result.labels.size(), 640u);
  for (int i = 16; i < points.cols(); ++i) EXPECT_EQ(result.labels[i], result.labels[i % 16]) << "point " << i;
}

// Every expert's blocks are code words of a planted code book: product quantization reproduces W exactly.
TEST(ProductQuantizer, ReproducesWeightsBuiltFromKCodeWords) {
  const int d = 4, K = 8, H = 16, I = 12, E = 3;
  SeededRandom random(11);
  Eigen::MatrixXf code(K, d);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < d; ++j) code(k, j) = static_cast<float>(4 * k + j) + 0.5f * static_cast<float>(random.unit());
  std::vector<Eigen::MatrixXf> experts(E, Eigen::MatrixXf(H, I));
  std::vector<IndexMap> planted(E, IndexMap(H / d, I));
  for (int e = 0; e < E; ++e)
    for (int j = 0; j < I; ++j)
      for (int b = 0; b < H / d; ++b) {
        planted[e](b, j) = static_cast<std::uint8_t>((e * 5 + j * 3 + b) % K);
        experts[e].col(j).segment(b * d, d) = code.row(planted[e](b, j)).transpose();
      }
  KMeansConfig config;
  config.clusters = K;
  const ProductQuantization pq = quantize_product(experts, d, config);
  ASSERT_EQ(pq.codebook.rows(), K);
  ASSERT_EQ(pq.codebook.cols(), d);
  ASSERT_EQ(pq.index_maps.size(), 3u);
  EXPECT_EQ(pq.index_maps[0].rows(), H / d);
  for (int e = 0; e < E; ++e) EXPECT_LT((reconstruct_vq(pq.codebook, pq.index_maps[e]) - experts[e]).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LT(pq.mse, 1e-10);
}

TEST(ProductQuantizer, BadParametersAreNamed) {
  std::vector<Eigen::MatrixXf> experts(2, Eigen::MatrixXf::Ones(16, 8));
  KMeansConfig config;
  config.clusters = 4;
  try {
    quantize_product(experts, 3, config);
    FAIL() << "d = 3 does not divide H = 16";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("d = 3 must divide H = 16"), std::string::npos) << e.what();
  }
  config.clusters = 300;
  try {
    quantize_product(experts, 4, config);
    FAIL() << "K = 300 needs more than 8 bits";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("K = 300"), std::string::npos) << e.what();
  }
  config.clusters = 256;  // 2 experts · (16/4)·8 = 64 blocks < 256
  EXPECT_THROW(quantize_product(experts, 4, config), InputError);
}

}  // namespace
}  // namespace stasim
