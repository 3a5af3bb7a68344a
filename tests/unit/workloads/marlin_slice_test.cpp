// Marlin's in-slice order: warp-row chains over interleaved 16-wide K blocks, then the thread-block reduce.
#include <gtest/gtest.h>

#include <vector>

#include "workloads/marlin_slice.hpp"

namespace stasim {
namespace {

TEST(MarlinSlice, WarpRowsFollowThreadK) {
  // threads = thread_k * thread_n / 64, thread_n / 64 warps across N: (threads / 32) / (thread_n / 64).
  EXPECT_EQ(marlin_warp_rows(64), 2);   // 64 x 128, 128 threads: 4 warps, 2 across N
  EXPECT_EQ(marlin_warp_rows(128), 4);  // 128 x 128, 256 threads: 8 warps, 2 across N; 128 x 64: 4 warps, 1
}

TEST(MarlinSlice, ThreadBlockReduceOrder) {
  // Four rows: c0 + (c1 + (c3 + c2)). With c0 = 1, c1 = c2 = 2^-24, c3 = 0: c3 + c2 = 2^-24, c1 + that =
  // 2^-23, 1 + 2^-23 is exact. In row order, 1 + 2^-24 ties to even (1) twice: 1.
  std::vector<float> c0 = {1.0f}, c1 = {0x1p-24f}, c2 = {0x1p-24f}, c3 = {0.0f};
  reduce_warp_rows({c0.data(), c1.data(), c2.data(), c3.data()}, 1);
  EXPECT_EQ(c0[0], 1.0f + 0x1p-23f);
  EXPECT_EQ(((1.0f + 0x1p-24f) + 0x1p-24f) + 0.0f, 1.0f);
  // Two rows: c0 + c1.
  std::vector<float> d0 = {1.0f}, d1 = {0x1p-24f};
  reduce_warp_rows({d0.data(), d1.data()}, 1);
  EXPECT_EQ(d0[0], 1.0f);  // 1 + 2^-24 ties to even
  // Eight rows: rows 2 and 3 take (c6 + c4) and (c7 + c5), row 1 adds (row 3 + row 2), row 0 adds row 1:
  // c0 + (c1 + ((c3 + (c7 + c5)) + (c2 + (c6 + c4)))). Values 2^-24 in rows 4 and 6 only: c6 + c4 = 2^-23,
  // c2 + that = 2^-23, row 1 = 2^-23, 1 + 2^-23 exact.
  std::vector<std::vector<float>> e = {{1.0f}, {0}, {0}, {0}, {0x1p-24f}, {0}, {0x1p-24f}, {0}};
  std::vector<float*> rows;
  for (auto& v : e) rows.push_back(v.data());
  reduce_warp_rows(rows, 1);
  EXPECT_EQ(e[0][0], 1.0f + 0x1p-23f);
}

TEST(MarlinSlice, InterleavedKBlocksAndTheReduceDecideTheBits) {
  // One row of ones, K = 128 (one tile of thread_k 128), one column of weights that is 1 at k = 0 (K block 0)
  // and 2^-24 at k = 16 and k = 32 (K blocks 1 and 2), zero elsewhere.
  std::vector<float> x(128, 1.0f), w(128 * 64, 0.0f);
  w[0 * 64] = 1.0f;
  w[16 * 64] = 0x1p-24f;
  w[32 * 64] = 0x1p-24f;
  SliceInput in;
  in.rows = {x.data()};
  in.weights = w.data();
  in.stride = 64;
  in.columns = 64;
  std::vector<float> scratch, out(64);
  // thread_k 128: four warp rows; blocks 0, 1, 2 land in rows 0, 1, 2 -> c0 = 1, c1 = c2 = 2^-24, c3 = 0 and
  // the reduce gives 1 + 2^-23 (see ThreadBlockReduceOrder).
  in.thread_k = 128;
  marlin_slice_partial(in, 0, 128, scratch, out.data());
  EXPECT_EQ(out[0], 1.0f + 0x1p-23f);
  EXPECT_EQ(out[1], 0.0f);
  // thread_k 64: two warp rows, two tiles. Row 0 chains blocks 0 and 2: the MMA of block 2 sees c = 1 and one
  // product 2^-24 = 4 units of 2^-26; 2^26 + 4 units truncated to 24 bits is 2^26: c0 = 1. Row 1 chains block 1:
  // c1 = 2^-24. Reduce: 1 + 2^-24 ties to even: 1.
  in.thread_k = 64;
  marlin_slice_partial(in, 0, 128, scratch, out.data());
  EXPECT_EQ(out[0], 1.0f);
  // Plain K order in FP32 (the model before the in-slice order): 1 + 2^-24 + 2^-24 = 1 as well, but for a
  // different reason; the thread_k 128 case shows the two are not the same arithmetic.
}

}  // namespace
}  // namespace stasim
