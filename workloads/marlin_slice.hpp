// How one Marlin worker computes its FP32 partial of one tile over one K slice, after vLLM's
// csrc/moe/marlin_moe_wna16/marlin_template.h (commit 31106f4f): the thread block's warps form thread_k / 32 warp
// rows; in every K tile, warp row r takes the 16-wide K blocks r, r + rows, r + 2 rows, ... (fetch_to_registers:
// a_sh_rd offset by the warp row, k_iter_size = 16 * rows per sub-iteration), so each row keeps its own FP32
// accumulator chain over the slice, fed by tensor-core MMA steps (tensor_core_mma.hpp); at the slice end
// thread_block_reduce adds the rows pairwise in shared memory. Rows of the block (tokens) never interact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stasim {

// Warps split a thread_k-deep tile into this many rows (threads = thread_k * thread_n / 64, thread_n / 64 warps
// across N: (threads / 32) / (thread_n / 64) = thread_k / 32).
std::int64_t marlin_warp_rows(std::int64_t thread_k);

// thread_block_reduce's order for `rows` (a power of two) chains of `size` floats each, result in chains[0]:
// rows [rows/2, rows) deposit into shared slots; then for i = rows/4, ..., 1 row r in [i, 2i) adds
// (slot[r] + slot[r - i]) to its own chain and deposits it in slot[r - i]; row 0 adds slot[0] last.
// Two rows: c0 + c1. Four rows: c0 + (c1 + (c3 + c2)).
void reduce_warp_rows(const std::vector<float*>& chains, std::size_t size);

struct SliceInput {
  std::vector<const float*> rows;  // activation row per valid token of the block, each K long (FP16 values)
  const float* weights = nullptr;  // weight (k, first column of the tile) at weights[k * stride]
  std::int64_t stride = 0;         // N of the whole GEMM
  std::int64_t columns = 0;        // thread_n
  std::int64_t thread_k = 0;
};

// The slice partial over K range [k_begin, k_end) (whole tiles, so multiples of thread_k), rows x columns floats
// into `out`. `scratch` is reused between calls.
void marlin_slice_partial(const SliceInput& in, std::int64_t k_begin, std::int64_t k_end, std::vector<float>& scratch,
                          float* out);

}  // namespace stasim
