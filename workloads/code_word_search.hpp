// The inner kernel of k-means: the nearest of K code words (length d ≤ 64) to a point, in the GEMM form
// argmin_k ‖c_k‖² − 2x·c_k (‖x‖² is the same for every k); ties go to the lowest k. SSE2 four code words at a
// time, or AVX eight at a time when asked for and the CPU has it (chosen at run time; the build stays baseline
// x86-64). Both do the same multiplies and adds per code word in the same order without FMA, so they pick the
// same code word bit for bit.
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace stasim {

class CodeWordSearch {
 public:
  // centroids: d × K, column k is code word k.
  CodeWordSearch(const Eigen::MatrixXf& centroids, bool allow_avx);

  int nearest(const float* x) const;
  bool uses_avx() const { return avx_; }

 private:
  int nearest_sse2(const float* x) const;
  int nearest_avx(const float* x) const;

  int d_ = 0;
  int K_ = 0;
  int padded_ = 0;                // K rounded up to a multiple of 8; padding entries have norm +inf
  std::vector<float> dim_major_;  // value j of code word k at j·padded + k
  std::vector<float> norms_;      // ‖c_k‖²
  bool avx_ = false;
};

}  // namespace stasim
