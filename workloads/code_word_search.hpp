// The inner kernel of k-means: the nearest of K code words (length d ≤ 64) to a point, in the GEMM form
// argmin_k ‖c_k‖² − 2x·c_k (‖x‖² is the same for every k); ties go to the lowest k. SSE2, four code words at a
// time (baseline x86-64; a scalar loop with the same operation order elsewhere). An 8-wide AVX variant chosen at
// run time was tried; on the shared 2-core machine it measured no faster (3.3 vs 2.2 CPU-s for 3 iterations over
// 2^20 points, with ±30% run-to-run noise), so it was left out.
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace stasim {

class CodeWordSearch {
 public:
  // centroids: d × K, column k is code word k.
  explicit CodeWordSearch(const Eigen::MatrixXf& centroids);

  int nearest(const float* x) const;

 private:

  int d_ = 0;
  int K_ = 0;
  int padded_ = 0;                // K rounded up to a multiple of 4; padding entries have norm +inf
  std::vector<float> dim_major_;  // value j of code word k at j·padded + k
  std::vector<float> norms_;      // ‖c_k‖²
};

}  // namespace stasim
