#include "workloads/product_quantizer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/input_error.hpp"
#include "workloads/code_word_search.hpp"
#include "workloads/parallel_chunks.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

// Points per work chunk. Fixed (never derived from the thread count) so partial sums, and therefore results,
// are identical with any number of threads.
constexpr std::int64_t kChunkPoints = 8192;
constexpr int kMaxClusters = 256;

// The points of one k-means problem: equally long segments of consecutive d-vectors (one per expert matrix,
// read in place, so a 128-expert layer is never copied into one array).
struct PointSet {
  int d = 0;
  std::vector<const float*> segments;
  std::int64_t per_segment = 0;

  std::int64_t size() const { return per_segment * static_cast<std::int64_t>(segments.size()); }
  const float* point(std::int64_t i) const { return segments[i / per_segment] + (i % per_segment) * d; }
};

struct Chunk {
  std::int64_t first = 0;  // global point index
  std::int64_t count = 0;
};

// Chunks never straddle segments, so a chunk's points are contiguous in memory.
std::vector<Chunk> make_chunks(const PointSet& points) {
  std::vector<Chunk> chunks;
  for (std::size_t s = 0; s < points.segments.size(); ++s)
    for (std::int64_t o = 0; o < points.per_segment; o += kChunkPoints)
      chunks.push_back({static_cast<std::int64_t>(s) * points.per_segment + o,
                        std::min(kChunkPoints, points.per_segment - o)});
  return chunks;
}

float squared_distance(const float* x, const float* c, int d) {
  float n = 0.0f;
  for (int j = 0; j < d; ++j) n += (x[j] - c[j]) * (x[j] - c[j]);
  return n;
}

struct Assignment {
  double squared_error = 0.0;
  std::int64_t changed = 0;
  std::vector<double> sums;           // d × K per chunk, only when accumulating
  std::vector<std::int64_t> counts;   // K
};

// Assigns every point to its nearest code word (labels[i]); per-point squared distances into distances when
// non-null; per-chunk sums for the update step when accumulate. Chunk partials are reduced in chunk order.
Assignment assign(const PointSet& points, const std::vector<Chunk>& chunks, const Eigen::MatrixXf& centroids,
                  std::uint8_t* const* label_segments, std::vector<float>* distances, bool accumulate, int threads) {
  const CodeWordSearch code(centroids);
  const int d = points.d;
  const int K = static_cast<int>(centroids.cols());
  std::vector<Assignment> partial(chunks.size());
  parallel_chunks(static_cast<std::int64_t>(chunks.size()), threads, [&](std::int64_t ci) {
    const Chunk& chunk = chunks[ci];
    Assignment& a = partial[ci];
    if (accumulate) {
      a.sums.assign(static_cast<std::size_t>(d) * K, 0.0);
      a.counts.assign(K, 0);
    }
    std::uint8_t* labels = label_segments[chunk.first / points.per_segment] + chunk.first % points.per_segment;
    const float* x = points.point(chunk.first);
    for (std::int64_t i = 0; i < chunk.count; ++i, x += d) {
      const int k = code.nearest(x);
      // The GEMM form picks the winner; its error is recomputed directly, since ‖x‖² + (‖c‖² − 2x·c) cancels
      // badly in float when the points sit far from the origin.
      const float error = squared_distance(x, &centroids(0, k), d);
      a.squared_error += error;
      if (labels[i] != k) ++a.changed;
      labels[i] = static_cast<std::uint8_t>(k);
      if (distances) (*distances)[chunk.first + i] = error;
      if (accumulate) {
        ++a.counts[k];
        for (int j = 0; j < d; ++j) a.sums[static_cast<std::size_t>(k) * d + j] += x[j];
      }
    }
  });
  Assignment total;
  if (accumulate) {
    total.sums.assign(static_cast<std::size_t>(d) * K, 0.0);
    total.counts.assign(K, 0);
  }
  for (const Assignment& a : partial) {
    total.squared_error += a.squared_error;
    total.changed += a.changed;
    if (!accumulate) continue;
    for (std::size_t i = 0; i < total.sums.size(); ++i) total.sums[i] += a.sums[i];
    for (int k = 0; k < K; ++k) total.counts[k] += a.counts[k];
  }
  return total;
}

// k-means++: the first code word uniformly, each next one with probability ∝ squared distance to the nearest
// chosen one (D² sampling), with per-chunk sums reduced in order so the draw is thread-count independent.
Eigen::MatrixXf seed_kmeans_plus_plus(const PointSet& points, const std::vector<Chunk>& chunks, int K,
                                      SeededRandom& random, int threads) {
  const int d = points.d;
  const std::int64_t n = points.size();
  Eigen::MatrixXf centroids(d, K);
  std::vector<float> nearest_distance(n, std::numeric_limits<float>::infinity());
  std::vector<double> chunk_sum(chunks.size());
  std::int64_t chosen = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(n)));
  for (int k = 0; k < K; ++k) {
    const float* c = points.point(chosen);
    for (int j = 0; j < d; ++j) centroids(j, k) = c[j];
    if (k + 1 == K) break;
    parallel_chunks(static_cast<std::int64_t>(chunks.size()), threads, [&](std::int64_t ci) {
      const Chunk& chunk = chunks[ci];
      const float* x = points.point(chunk.first);
      double sum = 0.0;
      for (std::int64_t i = 0; i < chunk.count; ++i, x += d) {
        float dist = 0.0f;
        for (int j = 0; j < d; ++j) {
          const float diff = x[j] - c[j];
          dist += diff * diff;
        }
        float& nearest_so_far = nearest_distance[chunk.first + i];
        nearest_so_far = std::min(nearest_so_far, dist);
        sum += nearest_so_far;
      }
      chunk_sum[ci] = sum;
    });
    double total = 0.0;
    for (double s : chunk_sum) total += s;
    if (total <= 0.0) {  // fewer distinct points than K: any point will do
      chosen = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(n)));
      continue;
    }
    double target = random.unit() * total;
    std::size_t ci = 0;
    while (ci + 1 < chunks.size() && target >= chunk_sum[ci]) target -= chunk_sum[ci++];
    const Chunk& chunk = chunks[ci];
    chosen = chunk.first + chunk.count - 1;
    for (std::int64_t i = 0; i < chunk.count; ++i) {
      const double w = nearest_distance[chunk.first + i];
      if (target < w) {
        chosen = chunk.first + i;
        break;
      }
      target -= w;
    }
  }
  return centroids;
}

// The training points: all of them, or a seeded sample (drawn with replacement, duplicates dropped, kept in
// index order) copied into one array.
struct TrainingSet {
  std::vector<float> storage;
  PointSet points;
};

TrainingSet training_sample(const PointSet& all, std::int64_t wanted, SeededRandom& random) {
  TrainingSet t;
  std::vector<std::int64_t> picks(wanted);
  for (auto& p : picks) p = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(all.size())));
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  t.storage.resize(picks.size() * all.d);
  for (std::size_t i = 0; i < picks.size(); ++i) std::copy_n(all.point(picks[i]), all.d, &t.storage[i * all.d]);
  t.points.d = all.d;
  t.points.segments = {t.storage.data()};
  t.points.per_segment = static_cast<std::int64_t>(picks.size());
  return t;
}

struct Trained {
  Eigen::MatrixXf centroids;
  double mse = 0.0;  // per point over all points
  int iterations = 0;
};

Trained run_kmeans(const PointSet& all, const std::vector<std::uint8_t*>& label_segments, const KMeansConfig& config) {
  const int threads = resolve_threads(config.threads);
  const int K = config.clusters;
  SeededRandom random(config.seed);
  TrainingSet sample;
  const bool subsample = config.training_points > 0 && config.training_points < all.size();
  if (subsample) sample = training_sample(all, config.training_points, random);
  const PointSet& train = subsample ? sample.points : all;
  if (train.size() < K)
    throw InputError("k-means: " + std::to_string(train.size()) + " training points for K = " + std::to_string(K) +
                     " clusters (need at least K)");
  const std::vector<Chunk> train_chunks = make_chunks(train);

  Trained result;
  result.centroids = seed_kmeans_plus_plus(train, train_chunks, K, random, threads);
  std::vector<std::uint8_t> train_label_storage;
  std::vector<std::uint8_t*> train_labels = label_segments;
  if (subsample) {
    train_label_storage.assign(train.size(), 0);
    train_labels = {train_label_storage.data()};
  }
  std::vector<float> distances(train.size());
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 1; it <= config.max_iterations; ++it) {
    Assignment a =
        assign(train, train_chunks, result.centroids, train_labels.data(), &distances, true, threads);
    result.iterations = it;
    const double mse = a.squared_error / static_cast<double>(train.size());
    for (int k = 0; k < K; ++k) {
      if (a.counts[k] > 0) {
        for (int j = 0; j < train.d; ++j)
          result.centroids(j, k) = static_cast<float>(a.sums[static_cast<std::size_t>(k) * train.d + j] / a.counts[k]);
        continue;
      }
      // Empty cluster: move it onto the point currently worst served (lowest index on ties).
      const auto worst = std::max_element(distances.begin(), distances.end()) - distances.begin();
      const float* x = train.point(worst);
      for (int j = 0; j < train.d; ++j) result.centroids(j, k) = x[j];
      distances[worst] = -1.0f;
      a.changed = std::max<std::int64_t>(a.changed, 1);
    }
    if (it > 1 && a.changed == 0) break;
    if (it > 1 && previous - mse <= config.tolerance * mse) break;
    previous = mse;
  }
  // One final assignment of every point with the trained code words.
  const Assignment final_assignment =
      assign(all, make_chunks(all), result.centroids, label_segments.data(), nullptr, false, threads);
  result.mse = final_assignment.squared_error / static_cast<double>(all.size());
  return result;
}

void check_config(const KMeansConfig& config) {
  std::vector<std::string> problems;
  if (config.clusters < 1 || config.clusters > kMaxClusters)
    problems.push_back("K = " + std::to_string(config.clusters) + " must be in [1, 256] (indices are uint8)");
  if (config.max_iterations < 1) problems.push_back("k-means iterations must be ≥ 1");
  if (!(config.tolerance >= 0)) problems.push_back("k-means tolerance must be ≥ 0");
  if (config.training_points < 0) problems.push_back("k-means training_points must be ≥ 0");
  if (!problems.empty()) throw InputError(problems);
}

}  // namespace

KMeansResult kmeans(const Eigen::Ref<const Eigen::MatrixXf>& points, const KMeansConfig& config) {
  check_config(config);
  if (points.rows() < 1 || points.rows() > 64) throw InputError("k-means: point length must be in [1, 64]");
  Eigen::MatrixXf contiguous = points;  // Ref may have an outer stride
  PointSet set;
  set.d = static_cast<int>(contiguous.rows());
  set.segments = {contiguous.data()};
  set.per_segment = contiguous.cols();
  KMeansResult result;
  result.labels.assign(static_cast<std::size_t>(set.per_segment), 0);
  Trained trained = run_kmeans(set, {result.labels.data()}, config);
  result.centroids = std::move(trained.centroids);
  result.mse = trained.mse;
  result.iterations = trained.iterations;
  return result;
}

ProductQuantization quantize_product(const std::vector<Eigen::MatrixXf>& experts, int d, const KMeansConfig& config) {
  check_config(config);
  if (experts.empty()) throw InputError("product quantization: no experts");
  const Eigen::Index H = experts.front().rows();
  const Eigen::Index I = experts.front().cols();
  if (d < 1 || d > 64 || H % d != 0)
    throw InputError("d = " + std::to_string(d) + " must divide H = " + std::to_string(H) + " (and be in [1, 64])");
  ProductQuantization pq;
  pq.d = d;
  PointSet set;
  set.d = d;
  set.per_segment = (H / d) * I;
  pq.index_maps.assign(experts.size(), IndexMap::Zero(H / d, I));
  std::vector<std::uint8_t*> labels;
  for (std::size_t e = 0; e < experts.size(); ++e) {
    if (experts[e].rows() != H || experts[e].cols() != I) throw InputError("product quantization: experts differ in shape");
    set.segments.push_back(experts[e].data());
    labels.push_back(pq.index_maps[e].data());
  }
  Trained trained = run_kmeans(set, labels, config);
  pq.codebook = trained.centroids.transpose();
  pq.mse = trained.mse / d;
  pq.iterations = trained.iterations;
  return pq;
}

Eigen::MatrixXf reconstruct_vq(const Eigen::MatrixXf& codebook, const IndexMap& index_map) {
  const Eigen::Index d = codebook.cols();
  Eigen::MatrixXf w(index_map.rows() * d, index_map.cols());
  for (Eigen::Index j = 0; j < index_map.cols(); ++j)
    for (Eigen::Index b = 0; b < index_map.rows(); ++b)
      w.col(j).segment(b * d, d) = codebook.row(index_map(b, j)).transpose();
  return w;
}

}  // namespace stasim
