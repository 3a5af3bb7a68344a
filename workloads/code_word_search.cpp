#include "workloads/code_word_search.hpp"

#include <cstdint>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stasim {

CodeWordSearch::CodeWordSearch(const Eigen::MatrixXf& centroids)
    : d_(static_cast<int>(centroids.rows())), K_(static_cast<int>(centroids.cols())) {
  padded_ = (K_ + 3) / 4 * 4;
  dim_major_.assign(static_cast<std::size_t>(d_) * padded_, 0.0f);
  norms_.assign(padded_, std::numeric_limits<float>::infinity());
  for (int k = 0; k < K_; ++k) {
    float n = 0.0f;
    for (int j = 0; j < d_; ++j) {
      dim_major_[static_cast<std::size_t>(j) * padded_ + k] = centroids(j, k);
      n += centroids(j, k) * centroids(j, k);
    }
    norms_[k] = n;
  }
}

int CodeWordSearch::nearest(const float* x) const {
#if defined(__SSE2__)
  __m128 best = _mm_set1_ps(std::numeric_limits<float>::infinity());
  __m128i best_index = _mm_setzero_si128();
  __m128i index = _mm_setr_epi32(0, 1, 2, 3);
  const __m128i four = _mm_set1_epi32(4);
  float minus_two_x[64];
  for (int j = 0; j < d_; ++j) minus_two_x[j] = -2.0f * x[j];
  for (int k = 0; k < padded_; k += 4) {
    __m128 acc = _mm_loadu_ps(&norms_[k]);
    for (int j = 0; j < d_; ++j)
      acc = _mm_add_ps(acc, _mm_mul_ps(_mm_set1_ps(minus_two_x[j]),
                                       _mm_loadu_ps(&dim_major_[static_cast<std::size_t>(j) * padded_ + k])));
    const __m128 better = _mm_cmplt_ps(acc, best);
    best = _mm_min_ps(acc, best);
    const __m128i mask = _mm_castps_si128(better);
    best_index = _mm_or_si128(_mm_and_si128(mask, index), _mm_andnot_si128(mask, best_index));
    index = _mm_add_epi32(index, four);
  }
  alignas(16) float values[4];
  alignas(16) std::int32_t indices[4];
  _mm_store_ps(values, best);
  _mm_store_si128(reinterpret_cast<__m128i*>(indices), best_index);
  int winner = 0;
  for (int lane = 1; lane < 4; ++lane)
    if (values[lane] < values[winner] || (values[lane] == values[winner] && indices[lane] < indices[winner])) winner = lane;
  return indices[winner];
#else
  int winner = 0;
  float best = std::numeric_limits<float>::infinity();
  for (int k = 0; k < K_; ++k) {
    float acc = norms_[k];
    for (int j = 0; j < d_; ++j) acc += (-2.0f * x[j]) * dim_major_[static_cast<std::size_t>(j) * padded_ + k];
    if (acc < best) {
      best = acc;
      winner = k;
    }
  }
  return winner;
#endif
}

}  // namespace stasim
