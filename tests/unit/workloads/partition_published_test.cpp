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
  // Block of 8 rows -> thread_m_blocks 1, tb_m 16, small-batch list. Shared memory per block (marlin_cache_bytes:
  // max(B stages, reduce buffer) + A stages + scale stages + 256 B of block metadata), 4 stages, scale group 128:
  //   k128 n128: max(4*128*128/2 = 32768, 16*136*2 = 4352) + 4*16*128*2 = 16384 + 1*128*2*4 = 1024 + 256 = 50432
  //   k64  n128: 16384 + 8192 + 1024 + 256 = 25856
  //   k128 n64 : 16384 + 16384 + 512 + 256 = 33536
  // Blocks per SM = min(register file 261120 B / (168 regs * threads * 4 B), 101376 / (cache + 1536)):
  //   k128 n128 256 threads: min(261120 / 172032 = 1, 101376 / 51968 = 1) = 1
  //   k64  n128 128 threads: min(261120 / 86016 = 3, 101376 / 27392 = 3) = 3
  //   k128 n64  128 threads: min(3, 101376 / 35072 = 2) = 2
  // Small-problem clause with 168 routed tokens: 12 N-tiles * 168 * 4 = 8064 >= 82 * 3: no change.
  // Most blocks: k64 n128 with 3 per SM; grid 82 * 3 = 246.
  EXPECT_EQ(marlin_cache_bytes(128, 128, 8, 128, 4), 50432);
  EXPECT_EQ(marlin_cache_bytes(64, 128, 8, 128, 4), 25856);
  EXPECT_EQ(marlin_cache_bytes(128, 64, 8, 128, 4), 33536);
  const LaunchChoice c = select_launch({1536, 2048, 168, 8, 128}, LaunchLimits{});
  EXPECT_EQ(c.thread_k, 64);
  EXPECT_EQ(c.thread_n, 128);
  EXPECT_EQ(c.threads, 128);
  EXPECT_EQ(c.blocks_per_sm, 3);
  EXPECT_EQ(c.grid, 246);
  EXPECT_FALSE(c.small_problem);
}

TEST(WorkPartition, LaunchRuleSmallProblemClauseLowersTheResidentCount) {
  // 4 routed tokens (say M 1, top-4): work = n_tiles * 4 * 4.
  //   k128 n128: count 1; 12 * 16 = 192 >= 82 * 1: stays 1
  //   k64  n128: count 3; 192 < 82 * 3 = 246 -> max(192 / 82, 1) = 2
  //   k128 n64 : count 2; 24 * 16 = 384 >= 82 * 2: stays 2 (not more than 2: the earlier k64 n128 keeps it)
  LaunchChoice c = select_launch({1536, 2048, 4, 8, 128}, LaunchLimits{});
  EXPECT_EQ(c.thread_k, 64);
  EXPECT_EQ(c.thread_n, 128);
  EXPECT_EQ(c.blocks_per_sm, 2);
  EXPECT_EQ(c.grid, 164);
  EXPECT_TRUE(c.small_problem);
  EXPECT_EQ(c.resident_limit, 3);
  // One routed token: 12 * 4 = 48 < 82 * count for every candidate -> max(48 / 82, 1) = 1, and 24 * 4 = 96 -> 1:
  // all three tie at 1, so the first candidate (k128 n128, 256 threads) wins; grid 82.
  c = select_launch({1536, 2048, 1, 8, 128}, LaunchLimits{});
  EXPECT_EQ(c.thread_k, 128);
  EXPECT_EQ(c.thread_n, 128);
  EXPECT_EQ(c.threads, 256);
  EXPECT_EQ(c.blocks_per_sm, 1);
  EXPECT_EQ(c.grid, 82);
}

TEST(WorkPartition, LaunchRuleUsesTheLargeBatchListAndCapForBlocksOver16Rows) {
  // Block of 32 rows -> thread_m_blocks 2, tb_m 32: candidates k64 n256 256 threads, k64 n128, k128 n64; cap 2.
  //   k64 n256: cache max(4*64*256/2 = 32768, 32*264*2 = 16896) + 4*32*64*2 = 16384 + 1*256*2*4 = 2048 + 512
  //             = 51712; min(261120 / 172032 = 1, 101376 / 53248 = 1) = 1
  //   k64 n128: 16384 + 16384 + 1024 + 512 = 34304; min(3, 101376 / 35840 = 2) = 2 (cap 2)
  //   k128 n64: 16384 + 32768 + 512 + 512 = 50176; min(3, 101376 / 51712 = 1) = 1
  // 600 routed tokens keep the clause away (8 N-tiles * 600 * 4 >= 164). Best k64 n128, 2 per SM: grid 164.
  const LaunchChoice c = select_launch({1024, 2048, 600, 32, 128}, LaunchLimits{});
  EXPECT_EQ(c.thread_k, 64);
  EXPECT_EQ(c.thread_n, 128);
  EXPECT_EQ(c.blocks_per_sm, 2);
  EXPECT_EQ(c.grid, 164);
}

TEST(WorkPartition, FullKCountsWholeWavesThenATailOfFullKSlices) {
  // Published first GEMM at grid 246 with full K: T = 600 = 2 * 246 + 108 -> W = 2, 492 direct tiles, a tail of
  // R = 108 tiles starting at block 41, N-tile 0, each one full-K slice (32 K-tiles) on worker t mod 246.
  const WorkPartition p = partition_work({50, 1536, 2048, 128, 64, 246, 128, true});
  EXPECT_EQ(p.waves, 2);
  EXPECT_EQ(p.direct_tiles, 492);
  EXPECT_EQ(p.remainder_tiles, 108);
  ASSERT_TRUE(p.has_remainder());
  EXPECT_EQ(p.remainder_start_block(), 41);
  EXPECT_EQ(p.remainder_start_n_tile(), 0);
  EXPECT_FALSE(p.merged_wave);
  EXPECT_EQ(p.iters, 32);
  EXPECT_EQ(p.split_tiles, 0);
  EXPECT_EQ(p.tiles[491].tile_class, TileClass::direct);
  EXPECT_EQ(p.tiles[492].tile_class, TileClass::stream_single);
  // Tile 599: worker 599 mod 246 = 107, K-tiles [0, 32).
  ASSERT_EQ(p.tiles[599].slices.size(), 1u);
  EXPECT_EQ(p.tiles[599].slices[0].worker, 107);
  EXPECT_EQ(p.tiles[599].slices[0].k_tile_begin, 0);
  EXPECT_EQ(p.tiles[599].slices[0].k_tile_end, 32);
  // Grid 200: T = 600 = 3 * 200 exactly -> W = 3, R = 0: no tail and no remainder start (the default partition
  // would merge a wave here instead).
  const WorkPartition whole = partition_work({50, 1536, 2048, 128, 64, 200, 128, true});
  EXPECT_EQ(whole.waves, 3);
  EXPECT_EQ(whole.direct_tiles, 600);
  EXPECT_EQ(whole.remainder_tiles, 0);
  EXPECT_FALSE(whole.has_remainder());
  for (const TilePlan& t : whole.tiles) EXPECT_EQ(t.tile_class, TileClass::direct);
  // Fewer tiles than workers: T = 8 <= G = 16 -> W = 0, all 8 tiles are the tail, starting at block 0.
  const WorkPartition small = partition_work({2, 512, 512, 128, 64, 16, 0, true});
  EXPECT_EQ(small.waves, 0);
  EXPECT_EQ(small.remainder_tiles, 8);
  EXPECT_EQ(small.remainder_start_block(), 0);
}

TEST(WorkPartition, ThreadTilesBelowMarlinsMinimumAreRejectedNamingTheLimit) {
  try {
    partition_work({50, 1536, 2048, 32, 32, 246, 0, false});
    FAIL();
  } catch (const InputError& e) {
    ASSERT_EQ(e.problems().size(), 2u);
    EXPECT_EQ(e.problems()[0], "thread_n = 32 is below Marlin's minimum thread tile 64 (min_thread_n)");
    EXPECT_EQ(e.problems()[1], "thread_k = 32 is below Marlin's minimum thread tile 64 (min_thread_k)");
  }
  // 192 = 3 * 64: its 6 warp rows cannot be reduced pairwise; 512 > max_thread_n 256; 96 not a multiple of 64.
  EXPECT_THROW(partition_work({50, 1536, 1536, 128, 192, 246, 0, false}), InputError);
  EXPECT_THROW(partition_work({50, 1536, 2048, 512, 64, 246, 0, false}), InputError);
  EXPECT_THROW(partition_work({50, 1536, 2048, 96, 64, 246, 0, false}), InputError);
  EXPECT_NO_THROW(partition_work({50, 1536, 2048, 256, 256, 246, 0, false}));
}

}  // namespace
}  // namespace stasim
