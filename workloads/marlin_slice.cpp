#include "workloads/marlin_slice.hpp"

#include <algorithm>

#include "workloads/tensor_core_mma.hpp"

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace stasim {

std::int64_t marlin_warp_rows(std::int64_t thread_k) { return thread_k / 32; }

void reduce_warp_rows(const std::vector<float*>& chains, std::size_t size) {
  const size_t rows = chains.size();
  if (rows < 2) return;
  const size_t half = rows / 2;  // thread_block_reduce's red_off
  std::vector<std::vector<float>> slots(half, std::vector<float>(size));
  for (size_t i = half; i > 0; i /= 2) {
    for (size_t row = i; row < 2 * i; ++row) {
      float* c = chains[row];
      if (i < half) {
        const float* own = slots[row].data();
        const float* low = slots[row - i].data();
        for (size_t x = 0; x < size; ++x) c[x] += own[x] + low[x];
      }
      std::copy(c, c + size, slots[row - i].begin());
    }
  }
  float* c0 = chains[0];
  for (size_t x = 0; x < size; ++x) c0[x] += slots[0][x];
}

void marlin_slice_partial(const SliceInput& in, std::int64_t k_begin, std::int64_t k_end, std::vector<float>& scratch,
                          float* out) {
  const std::int64_t rows = marlin_warp_rows(in.thread_k);
  const size_t m = in.rows.size();
  const size_t chain_size = m * static_cast<size_t>(in.columns);
  scratch.assign(static_cast<size_t>(rows) * chain_size, 0.0f);
  const int columns = static_cast<int>(in.columns);
  // 16-wide K blocks of the slice in ascending order; block kb belongs to warp row kb mod rows (tiles start on
  // multiples of 2 * rows blocks, so the row inside the tile and inside the slice agree).
  for (std::int64_t kb = k_begin / 16; kb < k_end / 16; ++kb) {
    float* chain = scratch.data() + static_cast<size_t>(kb % rows) * chain_size;
    for (size_t i = 0; i < m; ++i) {
      float* c = chain + i * static_cast<size_t>(in.columns);
      for (std::int64_t half = 0; half < 2; ++half) {  // m16n8k16 as two groups of 8
        const std::int64_t k0 = kb * 16 + half * kMmaGroupSize;
        mma_group_columns(c, in.rows[i] + k0, in.weights + k0 * in.stride, in.stride, kMmaGroupSize, columns);
      }
    }
  }
  std::vector<float*> chains;
  for (std::int64_t r = 0; r < rows; ++r) chains.push_back(scratch.data() + static_cast<size_t>(r) * chain_size);
  reduce_warp_rows(chains, chain_size);
  std::copy(chains[0], chains[0] + chain_size, out);
}

}  // namespace stasim
