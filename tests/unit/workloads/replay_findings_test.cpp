#include <gtest/gtest.h>

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "workloads/replay_experiment.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {


const ReplayFinding& finding(const ReplayResult& r, int number, const std::string& verdict) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const ReplayFinding& f) { return f.number == number && f.verdict == verdict; });
  if (it == r.findings.end()) throw std::runtime_error("no finding " + verdict);
  return *it;
}

TEST(ReplayFixture, HasFiftyBlocksAndAHistoryPairAcrossTheBoundary) {
  const ReplayFixture f = build_replay_fixture(ReplayConfig{});
  // 168 routes: one expert with 16 (two full blocks) and 48 experts sharing 152 routes (3 or 4 each, one block
  // each): 2 + 48 = 50 blocks.
  const Alignment canonical = align_routes(f.routing, 8, AlignmentOrder::canonical);
  EXPECT_EQ(f.routing.routes(), 168);
  EXPECT_EQ(canonical.blocks(), 50);
  // Grid 246: 600 tiles, R = 108, W = 2, 492 direct tiles = 41 blocks of 12 N-tiles: block 40 direct, 41 split.
  EXPECT_EQ(f.direct_block, 40);
  EXPECT_EQ(f.split_block, 41);
  EXPECT_EQ(canonical.expert_ids[40], f.boundary_expert);
  EXPECT_EQ(canonical.expert_ids[41], f.boundary_expert);
  EXPECT_NE(f.h0_seed, f.h1_seed);
  const Alignment h0 = align_routes(f.routing, 8, AlignmentOrder::native, f.h0_seed);
  const Alignment h1 = align_routes(f.routing, 8, AlignmentOrder::native, f.h1_seed);
  const MembershipFingerprint m0 = membership_fingerprint(h0);
  const MembershipFingerprint m1 = membership_fingerprint(h1);
  // Memberships agree everywhere except the two boundary blocks, where they differ by the exchanged pair.
  for (std::int64_t block = 0; block < 50; ++block) {
    if (block == 40 || block == 41) EXPECT_NE(m0[block], m1[block]) << block;
    else EXPECT_EQ(m0[block], m1[block]) << block;
  }
  auto in = [](const BlockMembership& m, std::int64_t r) {
    return std::count(m.routes.begin(), m.routes.end(), r) == 1;
  };
  EXPECT_TRUE(in(m0[40], f.exchange_direct_route) && in(m1[41], f.exchange_direct_route));
  EXPECT_TRUE(in(m0[41], f.exchange_split_route) && in(m1[40], f.exchange_split_route));
}

// 168 routes over 128 experts: upstream's large-batch alignment path, whose order depends on the history.
// With 64 experts the same 168 routes would take the small-batch path: one deterministic order, no pair of
// histories to compare, so the fixture refuses (naming the path) instead of searching forever.
TEST(ReplayFixture, SaysWhichAlignmentPathItIsOn) {
  EXPECT_EQ(build_replay_fixture(ReplayConfig{}).path.path, AlignmentPath::large_batch);
  ReplayConfig small;
  small.experts = 64;
  try {
    build_replay_fixture(small);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("small-batch alignment path"), std::string::npos) << e.what();
  }
}

// The published shapes (M 21, k 8, E 128, b 8, H 2048, I 768, grid 246, group 128). One test, because the
// experiment is the expensive part (7-10 s of CPU) and ctest runs every test in its own process.
TEST(ReplayFindings, AllSixHoldOnThePublishedFixture) {
  const ReplayResult r = run_replay_experiment(ReplayConfig{});
  ASSERT_EQ(r.rows.size(), 14u);
  for (const ReplayFinding& f : r.findings) EXPECT_TRUE(f.holds) << f.number << " " << f.verdict << ": " << f.detail;
  EXPECT_TRUE(r.all_hold());

  // The verdicts above come from these comparisons; spelled out so a wrong verdict rule cannot hide a change.
  const SurfaceHashes& h0 = r.rows[0].hashes;
  const SurfaceHashes& h1 = r.rows[1].hashes;
  EXPECT_NE(h0.w13, h1.w13);  // native histories differ at every surface
  EXPECT_NE(h0.activation, h1.activation);
  EXPECT_NE(h0.routed_w2, h1.routed_w2);
  EXPECT_NE(h0.final_output, h1.final_output);
  EXPECT_TRUE(finding(r, 1, "distinct").holds);
  EXPECT_EQ(r.rows[2].hashes, h0);  // own plan replayed
  EXPECT_EQ(r.rows[3].hashes, h1);
  EXPECT_EQ(r.rows[4].hashes, h1);  // opposite plan: opposite result, completely
  EXPECT_EQ(r.rows[5].hashes, h0);
  EXPECT_EQ(r.rows[6].hashes, h0);  // swap inside the split block
  EXPECT_EQ(r.rows[7].hashes, h1);  // swap inside the direct block
  EXPECT_EQ(r.rows[8].hashes, h1);  // one exchange across the boundary
  EXPECT_EQ(r.rows[9].hashes, h0);
  EXPECT_EQ(r.rows[10].grid, 200);
  EXPECT_EQ(r.rows[10].hashes.w13, r.rows[11].hashes.w13);  // no split tile: histories collapse
  EXPECT_EQ(r.rows[12].hashes, r.rows[13].hashes);          // canonical: one result ...
  EXPECT_NE(r.rows[12].hashes, h0);                         // ... a third one
  EXPECT_NE(r.rows[12].hashes, h1);
}

// A smaller layer (H 256, I 128: 2 N-tiles x 4 K-tiles, then 2 N-tiles x 2 K-tiles) so many grids are cheap.
// Shuffling the rows inside every block never changes a hash: a row's arithmetic depends on its block's tile
// classes, not on its position in the block.
TEST(ReplayFindings, WithinBlockPermutationNeverChangesAnySurfaceUnderAnyGrid) {
  ReplayConfig c;
  c.hidden = 256;
  c.intermediate = 128;
  // 50 blocks x 2 N-tiles = 100 tiles; grid 24: R = 100 mod 24 = 4, 3*4 <= 24 -> merged, R = 28, W = 3, 72
  // direct tiles (blocks 0..35); iters = ceil(4*28/24) = 5 -> 6 (group 128 / thread_k 64 = 2), so slices of 6
  // K-tiles cross the 4-K-tile tiles: block 36 has split tiles.
  c.grid = 24;
  const ReplayFixture f = build_replay_fixture(c);
  const SyntheticMoeLayer layer(f.routing, {c.hidden, c.intermediate, c.group_size, 3});
  const Alignment h0 = align_routes(f.routing, 8, AlignmentOrder::native, f.h0_seed);
  SeededRandom random(11);
  std::vector<std::int64_t> shuffled = h0.rows;
  for (std::int64_t block = 0; block < h0.blocks(); ++block)
    for (std::int64_t i = 7; i > 0; --i)
      std::swap(shuffled[static_cast<size_t>(block * 8 + i)],
                shuffled[static_cast<size_t>(block * 8 + static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(i + 1))))]);
  ASSERT_NE(shuffled, h0.rows);
  const Alignment permuted = align_with_plan(f.routing, 8, shuffled);
  ASSERT_EQ(membership_fingerprint(permuted), membership_fingerprint(h0));
  std::vector<LayerRun> runs;
  for (std::int64_t grid : {1, 2, 3, 7, 13, 20, 24, 33, 47, 64, 99, 100, 101, 150, 246}) {
    WorkPartition w13 = partition_work({50, 256, 256, 128, 64, grid, 128, false});
    WorkPartition w2 = partition_work({50, 256, 128, 128, 64, grid, 128, false});
    runs.push_back({h0, w13, w2});
    runs.push_back({permuted, w13, w2});
  }
  const std::vector<LayerSurfaces> out = evaluate_layer(layer, runs);
  for (size_t i = 0; i < out.size(); i += 2) EXPECT_EQ(out[i].hashes(), out[i + 1].hashes()) << "run " << i;
}

// The same small layer shows the mechanism is real there too: crossing the boundary can change the first GEMM,
// and the batch-invariant partition removes it. With K = 256 a split tile and a direct tile differ by a few
// FP32 ulps that FP16 rounding usually absorbs (measured: 5 of these 20 layer seeds move one or two W13
// values), so the test looks across seeds; the published K = 2048 moves every surface (AllSixHold above).
TEST(ReplayFindings, CrossingTheBoundaryChangesTheFirstGemmOnTheSmallLayer) {
  ReplayConfig c;
  c.hidden = 256;
  c.intermediate = 128;
  c.grid = 24;
  const ReplayFixture f = build_replay_fixture(c);
  const Alignment h0 = align_routes(f.routing, 8, AlignmentOrder::native, f.h0_seed);
  const Alignment h1 = align_routes(f.routing, 8, AlignmentOrder::native, f.h1_seed);
  WorkPartition w13 = partition_work({50, 256, 256, 128, 64, 24, 128, false});
  WorkPartition w2 = partition_work({50, 256, 128, 128, 64, 24, 128, false});
  WorkPartition w13_full = partition_work({50, 256, 256, 128, 64, 24, 128, true});
  WorkPartition w2_full = partition_work({50, 256, 128, 128, 64, 24, 128, true});
  int seeds_that_move = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const SyntheticMoeLayer layer(f.routing, {c.hidden, c.intermediate, c.group_size, seed});
    const std::vector<LayerSurfaces> out =
        evaluate_layer(layer, {{h0, w13, w2}, {h1, w13, w2}, {h0, w13_full, w2_full}, {h1, w13_full, w2_full}});
    seeds_that_move += out[0].hashes().w13 != out[1].hashes().w13;
    // Batch-invariant (full-K) partition: no split tile, so the histories agree everywhere, for every seed.
    EXPECT_EQ(out[2].hashes(), out[3].hashes()) << "seed " << seed;
  }
  EXPECT_GT(seeds_that_move, 0);
}

}  // namespace
}  // namespace stasim
