#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "workloads/work_partition.hpp"

namespace stasim {
namespace {

// The published first GEMM: N = 2I = 1536, K = H = 2048, tiles 128 x 64, scale groups of 128, P = 50 blocks:
// 12 N-tiles x 32 K-tiles, T = 50 * 12 = 600 tiles.
WorkPartitionConfig published(std::int64_t grid) { return {50, 1536, 2048, 128, 64, grid, 128, false}; }

TEST(WorkPartition, PublishedGrid246) {
  const WorkPartition p = partition_work(published(246));
  EXPECT_EQ(p.n_tiles, 12);
  EXPECT_EQ(p.k_tiles, 32);
  EXPECT_EQ(p.total_tiles, 600);
  // 600 mod 246 = 108; 3 * 108 = 324 > 246: no merge. W = (600 - 108) / 246 = 2.
  EXPECT_EQ(p.remainder_tiles, 108);
  EXPECT_FALSE(p.merged_wave);
  EXPECT_EQ(p.waves, 2);
  EXPECT_EQ(p.direct_tiles, 492);
  // 492 / 12 = 41 rem 0: the remainder starts at block 41, N-tile 0.
  EXPECT_EQ(p.remainder_start_block(), 41);
  EXPECT_EQ(p.remainder_start_n_tile(), 0);
  // iters = ceil(32 * 108 / 246) = ceil(14.05) = 15 -> multiple of 128 / 64 = 2 -> 16.
  EXPECT_EQ(p.iters, 16);
  // Each remainder tile: two slices of 16 K-tiles; all 108 split.
  EXPECT_EQ(p.split_tiles, 108);
  for (std::int64_t nt = 0; nt < 12; ++nt) {
    EXPECT_EQ(p.tile(40, nt).tile_class, TileClass::direct);
    const TilePlan& split = p.tile(41, nt);
    ASSERT_EQ(split.tile_class, TileClass::split);
    ASSERT_EQ(split.slices.size(), 2u);
    // Reduction order: the high K half deposits first, the owner of K-tile 0 adds last.
    EXPECT_EQ(split.slices[0].k_tile_begin, 16);
    EXPECT_EQ(split.slices[0].k_tile_end, 32);
    EXPECT_EQ(split.slices[1].k_tile_begin, 0);
    EXPECT_EQ(split.slices[1].k_tile_end, 16);
  }
  // Direct tile t is worker t mod 246 over the full K: tile 300 -> worker 54.
  ASSERT_EQ(p.tiles[300].slices.size(), 1u);
  EXPECT_EQ(p.tiles[300].slices[0].worker, 54);
  EXPECT_EQ(p.tiles[300].slices[0].k_tile_end, 32);
  // Remainder tile 492 + i: flattened K-tiles [32i, 32i + 32) -> workers 2i (low half) and 2i + 1 (high half).
  EXPECT_EQ(p.tiles[492 + 5].slices[0].worker, 11);
  EXPECT_EQ(p.tiles[492 + 5].slices[1].worker, 10);
}

TEST(WorkPartition, PublishedGrid200MergesAndSplitsNothing) {
  const WorkPartition p = partition_work(published(200));
  // 600 mod 200 = 0; 3 * 0 <= 200 -> merge: R = 200, W = (600 - 200) / 200 = 2, 400 direct tiles.
  EXPECT_TRUE(p.merged_wave);
  EXPECT_EQ(p.remainder_tiles, 200);
  EXPECT_EQ(p.waves, 2);
  EXPECT_EQ(p.direct_tiles, 400);
  // 400 = 33 * 12 + 4: block 33, N-tile 4.
  EXPECT_EQ(p.remainder_start_block(), 33);
  EXPECT_EQ(p.remainder_start_n_tile(), 4);
  // iters = ceil(32 * 200 / 200) = 32 (already a multiple of 2): one full-K slice per tile.
  EXPECT_EQ(p.iters, 32);
  EXPECT_EQ(p.split_tiles, 0);
  for (const TilePlan& t : p.tiles) {
    ASSERT_EQ(t.slices.size(), 1u);
    EXPECT_EQ(t.slices[0].k_tile_end - t.slices[0].k_tile_begin, 32);
  }
}

TEST(WorkPartition, SecondGemmOfThePublishedLayer) {
  // N = H = 2048, K = I = 768: 16 N-tiles x 12 K-tiles, T = 800. 800 mod 246 = 62, 3 * 62 = 186 <= 246 ->
  // merge: R = 308, W = 2, 492 direct = block 30 N-tile 12. iters = ceil(12 * 308 / 246) = ceil(15.02) = 16.
  const WorkPartition p = partition_work({50, 2048, 768, 128, 64, 246, 128, false});
  EXPECT_EQ(p.remainder_tiles, 308);
  EXPECT_EQ(p.waves, 2);
  EXPECT_EQ(p.remainder_start_block(), 30);
  EXPECT_EQ(p.remainder_start_n_tile(), 12);
  EXPECT_EQ(p.iters, 16);
  // Slices of 16 over 12-K-tile tiles repeat every lcm(12, 16) / 12 = 4 tiles: single, split, split, single.
  EXPECT_EQ(p.tiles[492].tile_class, TileClass::stream_single);
  EXPECT_EQ(p.tiles[493].tile_class, TileClass::split);
  EXPECT_EQ(p.tiles[494].tile_class, TileClass::split);
  EXPECT_EQ(p.tiles[495].tile_class, TileClass::stream_single);
  EXPECT_EQ(p.split_tiles, 308 / 2);
  // Tile 493 covers flattened [12, 24): worker 0 has [12, 16), worker 1 [16, 24). High K first.
  EXPECT_EQ(p.tiles[493].slices[0].worker, 1);
  EXPECT_EQ(p.tiles[493].slices[0].k_tile_begin, 4);
  EXPECT_EQ(p.tiles[493].slices[1].k_tile_end, 4);
}

TEST(WorkPartition, SmallProblemIsAllStreamKAndFullKIsBatchInvariant) {
  // T = 2 * 4 = 8 <= G = 16: R = 8, W = 0; per-channel scales: iters = ceil(8 * 8 / 16) = 4 -> each tile of
  // 8 K-tiles is two slices.
  const WorkPartition p = partition_work({2, 512, 512, 128, 64, 16, 0, false});
  EXPECT_EQ(p.waves, 0);
  EXPECT_EQ(p.remainder_tiles, 8);
  EXPECT_EQ(p.iters, 4);
  EXPECT_EQ(p.split_tiles, 8);
  const WorkPartition full = partition_work({2, 512, 512, 128, 64, 16, 0, true});
  EXPECT_EQ(full.split_tiles, 0);
  for (const TilePlan& t : full.tiles) EXPECT_EQ(t.slices.size(), 1u);
}

TEST(WorkPartition, BadShapesAreInputErrors) {
  EXPECT_THROW(partition_work({50, 1500, 2048, 128, 64, 246, 128, false}), InputError);  // 1500 % 128 != 0
  EXPECT_THROW(partition_work({50, 1536, 2000, 128, 64, 246, 128, false}), InputError);  // 2000 % 64 != 0
  EXPECT_THROW(partition_work({50, 1536, 2048, 128, 64, 0, 128, false}), InputError);    // grid 0
  EXPECT_THROW(partition_work({0, 1536, 2048, 128, 64, 246, 128, false}), InputError);   // no blocks
  try {
    partition_work({50, 1500, 2048, 128, 64, 0, 128, false});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems().size(), 2u);  // both problems reported at once
    EXPECT_NE(std::string(e.what()).find("1500"), std::string::npos);
  }
}

TEST(WorkPartition, LaunchRulePicksTheReferenceConfigurationOnAn82SmGpu) {
  // Blocks per SM = min(by registers, by shared memory), shared memory per block (4 stages, 16 rows):
  //   k128 n128 256 threads: 65536 / (168 * 256) = 1;  4 * (16*128*2 + 128*128/2) + 256 = 49408 B -> 2   -> 1
  //   k64  n128 128 threads: 65536 / (168 * 128) = 3;  4 * (16*64*2 + 64*128/2) + 256 = 24832 B -> 3    -> 3
  //   k128 n64  128 threads: 3;                        4 * (16*128*2 + 128*64/2) + 128 = 32896 B -> 2    -> 2
  // (shared: 101376 / (bytes + 1024)). Most blocks: k64 n128 with 3 per SM; grid 82 * 3 = 246.
  const LaunchChoice c = select_launch(1536, 2048, 8, 128, LaunchLimits{});
  EXPECT_EQ(c.thread_k, 64);
  EXPECT_EQ(c.thread_n, 128);
  EXPECT_EQ(c.threads, 128);
  EXPECT_EQ(c.blocks_per_sm, 3);
  EXPECT_EQ(c.grid, 246);
}

}  // namespace
}  // namespace stasim
