#include <gtest/gtest.h>

#include <cmath>

#include "workloads/fp16.hpp"
#include "workloads/replay_experiment.hpp"
#include "workloads/route_numerics.hpp"
#include "workloads/tensor_core_mma.hpp"

namespace stasim {
namespace {

// One output column over K range [k_begin, k_end) as a 64 x 128 Marlin tile computes it, restated with the scalar
// MMA statement: thread_k 64 -> two warp rows; row r chains the 16-wide K blocks r, r + 2, ... (each one MMA of
// two groups of 8), and the thread-block reduce adds row 1 into row 0.
float slice_by_hand(const float* x, const std::vector<float>& w, std::int64_t n_total, std::int64_t column,
                    std::int64_t k_begin, std::int64_t k_end) {
  float chain[2] = {0.0f, 0.0f};
  for (std::int64_t kb = k_begin / 16; kb < k_end / 16; ++kb) {
    for (std::int64_t half = 0; half < 2; ++half) {
      float a[8], b[8];
      for (std::int64_t q = 0; q < 8; ++q) {
        const std::int64_t k = kb * 16 + half * 8 + q;
        a[q] = x[k];
        b[q] = w[static_cast<size_t>(k * n_total + column)];
      }
      chain[kb % 2] = mma_group(chain[kb % 2], a, b, 8);
    }
  }
  return chain[0] + chain[1];
}

TEST(NumericsModel, PortableExpMatchesLibmClosely) {
  for (double x = -30.0; x <= 30.0; x += 0.0137) {
    const double expected = std::exp(x);
    EXPECT_NEAR(portable_exp(x), expected, expected * 4e-16) << x;
  }
  EXPECT_EQ(portable_exp(0.0), 1.0);
}

TEST(NumericsModel, SiluGateRoundsToFp16) {
  // silu(0) = 0; silu(2) * 1 = 2 / (1 + e^-2) = 1.76159..., nearest FP16 1.7617188 (0x3F0C: 1 + 268/1024).
  EXPECT_EQ(silu_gate(0.0f, 5.0f), 0.0f);
  EXPECT_EQ(fp16_from_float(silu_gate(2.0f, 1.0f)), 0x3F0C);
}

TEST(NumericsModel, Int4DequantizationRoundsTheProductToFp16) {
  // scale fp16(0.01) = 0x211F = (1 + 287/1024) * 2^-7 = 0.010002136230; (15 - 8) * that = 0.070014953613.
  // In [2^-4, 2^-3) the FP16 step is 2^-14: (0.070014953613 - 0.0625) * 2^14 = 123.125 -> 123 = 0x7B: 0x2C7B.
  const std::uint16_t scale = fp16_from_float(0.01f);
  EXPECT_EQ(scale, 0x211F);
  EXPECT_EQ(fp16_from_float(dequantize_int4(15, 8, scale)), 0x2C7B);
  EXPECT_EQ(dequantize_int4(8, 8, scale), 0.0f);
}

// Recomputes the first GEMM for one block by hand: a direct block is one slice over all K; a split tile whose
// slices are K-tiles [2, 4) (deposited first) and [0, 2) gives fp16(low + high), each slice as slice_by_hand.
TEST(NumericsModel, FirstGemmFollowsTheSliceReductionOrder) {
  ReplayConfig c;
  c.hidden = 256;        // K = 256: 4 K-tiles of 64
  c.intermediate = 128;  // N = 256: 2 N-tiles of 128
  c.grid = 24;
  const ReplayFixture f = build_replay_fixture(c);
  const SyntheticMoeLayer layer(f.routing, {256, 128, 128, 5});
  const Alignment a = align_routes(f.routing, 8, AlignmentOrder::canonical);
  // T = 100, R = 100 mod 24 = 4 -> merged 28, 72 direct tiles; iters = ceil(4 * 28 / 24) = 5 -> 6. Tile 73
  // (block 36, N-tile 1) holds flattened K-tiles [4, 8): worker 0 has [4, 6), worker 1 [6, 8).
  const WorkPartition w13 = partition_work({50, 256, 256, 128, 64, 24, 128, false});
  const WorkPartition w2 = partition_work({50, 256, 128, 128, 64, 24, 128, false});
  const TilePlan& tile = w13.tile(36, 1);
  ASSERT_EQ(tile.slices.size(), 2u);
  ASSERT_EQ(tile.slices[0].k_tile_begin, 2);
  ASSERT_EQ(tile.slices[1].k_tile_end, 2);
  const LayerSurfaces out = evaluate_layer(layer, {{a, w13, w2}})[0];

  const std::int32_t expert = a.expert_ids[36];
  std::vector<float> w;
  layer.w13(expert, w);
  int checked = 0, differs_from_plain_k_order = 0;
  for (std::int64_t row = 36 * 8; row < 37 * 8; ++row) {
    const std::int64_t r = a.rows[static_cast<size_t>(row)];
    if (r == a.sentinel) continue;
    const float* x = layer.activations().data() + (r / 8) * 256;
    for (std::int64_t n = 128; n < 256; ++n) {
      const float low = slice_by_hand(x, w, 256, n, 0, 128);
      const float high = slice_by_hand(x, w, 256, n, 128, 256);
      ASSERT_EQ(out.w13[static_cast<size_t>(r * 256 + n)], fp16_from_float(low + high)) << "route " << r << " n " << n;
      ++checked;
      float plain = 0;  // the previous model: one IEEE chain in K order per slice
      float plain_high = 0;
      for (std::int64_t k = 0; k < 128; ++k) plain += x[k] * w[static_cast<size_t>(k * 256 + n)];
      for (std::int64_t k = 128; k < 256; ++k) plain_high += x[k] * w[static_cast<size_t>(k * 256 + n)];
      differs_from_plain_k_order += fp16_from_float(plain + plain_high) != out.w13[static_cast<size_t>(r * 256 + n)];
    }
  }
  EXPECT_GT(checked, 0);
  // The in-slice order is not a relabelling of plain K order: some FP16 outputs of the block move.
  EXPECT_GT(differs_from_plain_k_order, 0);
  // Block 0 is direct: one slice over all 256 K.
  const std::int64_t r0 = a.rows[0];
  const std::int32_t e0 = a.expert_ids[0];
  layer.w13(e0, w);
  const float* x0 = layer.activations().data() + (r0 / 8) * 256;
  for (std::int64_t n = 0; n < 256; ++n)
    ASSERT_EQ(out.w13[static_cast<size_t>(r0 * 256 + n)], fp16_from_float(slice_by_hand(x0, w, 256, n, 0, 256))) << n;
}

TEST(NumericsModel, BatchingRunsDoesNotChangeResults) {
  ReplayConfig c;
  c.hidden = 256;
  c.intermediate = 128;
  c.grid = 24;
  const ReplayFixture f = build_replay_fixture(c);
  const SyntheticMoeLayer layer(f.routing, {256, 128, 128, 5});
  const Alignment h0 = align_routes(f.routing, 8, AlignmentOrder::native, f.h0_seed);
  const Alignment h1 = align_routes(f.routing, 8, AlignmentOrder::native, f.h1_seed);
  const WorkPartition w13 = partition_work({50, 256, 256, 128, 64, 24, 128, false});
  const WorkPartition w2 = partition_work({50, 256, 128, 128, 64, 24, 128, false});
  const auto together = evaluate_layer(layer, {{h0, w13, w2}, {h1, w13, w2}});
  EXPECT_EQ(together[0].hashes(), evaluate_layer(layer, {{h0, w13, w2}})[0].hashes());
  EXPECT_EQ(together[1].hashes(), evaluate_layer(layer, {{h1, w13, w2}})[0].hashes());
}

}  // namespace
}  // namespace stasim
