// Product quantization of one projection of one layer (docs/cardan.md "The representation"): every column of
// every expert's W_e (H×I) is cut into H/d blocks of length d, and k-means over all those blocks gives the
// code book B (K×d, shared by the layer's experts) and each expert's index map J_e ((H/d)×I, uint8).
// k-means++ seeding and Lloyd iterations are seeded and deterministic: the result does not depend on the
// number of threads (work is split into fixed chunks and reduced in a fixed order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace stasim {

// J_e: entry (b, j) is the code word of block b (rows b·d .. b·d+d-1) of column j.
using IndexMap = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>;

struct KMeansConfig {
  int clusters = 256;           // K (≤ 256: indices are uint8)
  int max_iterations = 25;      // Lloyd iterations after seeding
  double tolerance = 1e-5;      // stop when the relative decrease of the mean squared error falls below it
  std::int64_t training_points = 0;  // 0: train on all points; else on a seeded uniform subsample of that many
  std::uint64_t seed = 1;
  int threads = 0;              // 0: the CPUs this process may use (affinity)
};

struct KMeansResult {
  Eigen::MatrixXf centroids;           // d × K (column k is code word k)
  std::vector<std::uint8_t> labels;    // one per point, over all points (not only the training sample)
  double mse = 0.0;                    // mean over all points of the squared distance to its centroid
  int iterations = 0;                  // Lloyd iterations run
};

// points: d × N (each column one point). Needs N ≥ clusters. Empty clusters are re-seeded with the point
// farthest from its centroid, so all K code words are used when there are ≥ K distinct points.
KMeansResult kmeans(const Eigen::Ref<const Eigen::MatrixXf>& points, const KMeansConfig& config);

struct ProductQuantization {
  int d = 0;
  Eigen::MatrixXf codebook;           // K × d (row k is code word k), as in docs/cardan.md
  std::vector<IndexMap> index_maps;   // one per expert, (H/d) × I
  double mse = 0.0;                   // mean squared error per weight
  int iterations = 0;
};

// experts: all experts of one projection, each H × I, with d dividing H. Throws InputError naming the value
// when d does not divide H, K > 256 or there are fewer blocks than K.
ProductQuantization quantize_product(const std::vector<Eigen::MatrixXf>& experts, int d, const KMeansConfig& config);

// Q_B(J_e): the H × I matrix whose block (b, j) is code word J_e(b, j).
Eigen::MatrixXf reconstruct_vq(const Eigen::MatrixXf& codebook, const IndexMap& index_map);

}  // namespace stasim
