// Upstream's two moe_align_block_size kernels: which one a routing takes, and the deterministic order of the
// small-batch kernel (thread r mod max(E, 32) places route r; threads in order, each thread's routes ascending).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "workloads/alignment.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

RoutingTrace one_per_token(const std::vector<std::int64_t>& experts, std::int64_t expert_count) {
  std::vector<std::vector<std::int64_t>> rows;
  for (std::int64_t e : experts) rows.push_back({e});
  return routing_from_rows(rows, {}, expert_count, "test");
}

TEST(AlignmentPaths, SmallPathWhenFewerThan1024RoutesAndAtMost64Experts) {
  EXPECT_EQ(alignment_path(1023, 64).path, AlignmentPath::small_batch);
  EXPECT_EQ(alignment_path(1023, 64).threads, 64);   // max(E, 32)
  EXPECT_EQ(alignment_path(1024, 64).path, AlignmentPath::large_batch);  // not fewer than 1024 routes
  EXPECT_EQ(alignment_path(1023, 65).path, AlignmentPath::large_batch);  // more than 64 experts
  EXPECT_EQ(alignment_path(10, 8).threads, 32);      // max(8, 32): a full warp counts
  EXPECT_EQ(alignment_path(100, 33).threads, 33);
  // The models at decode batch sizes: Mixtral (E 8, top-2) at 16 tokens = 32 routes; OLMoE (E 64, top-8) up to
  // 127 tokens = 1016 routes; DeepSeek-V2-Lite (E 64, top-6) up to 170 tokens = 1020 routes. Qwen3 (E 128)
  // never takes the small path.
  EXPECT_EQ(alignment_path(16 * 2, 8).path, AlignmentPath::small_batch);
  EXPECT_EQ(alignment_path(127 * 8, 64).path, AlignmentPath::small_batch);
  EXPECT_EQ(alignment_path(128 * 8, 64).path, AlignmentPath::large_batch);
  EXPECT_EQ(alignment_path(170 * 6, 64).path, AlignmentPath::small_batch);
  EXPECT_EQ(alignment_path(171 * 6, 64).path, AlignmentPath::large_batch);
  EXPECT_EQ(alignment_path(1 * 8, 128).path, AlignmentPath::large_batch);
}

TEST(AlignmentPaths, ThirtyThreeRoutesToExpertZeroOfTwo) {
  // 33 routes, all to expert 0 of E = 2, b = 8: small path with max(2, 32) = 32 counting threads. Thread 0 takes
  // routes 0 and 32, thread t (1..31) takes route t; thread 0 writes first, so expert 0's order is
  // 0, 32, 1, 2, ..., 31, then 40 - 33 = 7 sentinels (33). The first block holds routes 0-6 and 32.
  const RoutingTrace trace = one_per_token(std::vector<std::int64_t>(33, 0), 2);
  const Alignment a = align_routes(trace, 8, AlignmentOrder::native, 7);
  EXPECT_EQ(a.path.path, AlignmentPath::small_batch);
  EXPECT_EQ(a.path.threads, 32);
  EXPECT_EQ(a.seed, 0u);  // no history on this path
  std::vector<std::int64_t> expected = {0, 32};
  for (std::int64_t r = 1; r <= 31; ++r) expected.push_back(r);
  expected.resize(40, 33);
  EXPECT_EQ(a.rows, expected);
  const MembershipFingerprint m = membership_fingerprint(a);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].routes, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 32}));
  EXPECT_EQ(m[1].routes, (std::vector<std::int64_t>{7, 8, 9, 10, 11, 12, 13, 14}));
  EXPECT_EQ(m[4].routes, (std::vector<std::int64_t>{31}));
  // Canonical puts 0-7 in the first block, so the two differ in membership, not only in order.
  EXPECT_NE(membership_fingerprint(align_routes(trace, 8, AlignmentOrder::canonical)), m);
  // Any seed gives the same order.
  EXPECT_EQ(align_routes(trace, 8, AlignmentOrder::native, 123).rows, a.rows);
}

TEST(AlignmentPaths, FortyExpertsUseFortyThreads) {
  // 90 routes (one per token), route r to expert r mod 2, E = 40: 40 counting threads. Thread t takes routes
  // t, t + 40, t + 80. Expert 0 (even routes): thread 0 -> 0, 40, 80; thread 2 -> 2, 42, 82; thread 4 -> 4, 44,
  // 84; ... so its first block of 8 is 0, 40, 80, 2, 42, 82, 4, 44. Expert 1: 1, 41, 81, 3, 43, 83, 5, 45.
  std::vector<std::int64_t> experts;
  for (std::int64_t r = 0; r < 90; ++r) experts.push_back(r % 2);
  const Alignment a = align_routes(one_per_token(experts, 40), 8, AlignmentOrder::native, 0);
  ASSERT_EQ(a.path.threads, 40);
  // Expert 0 has 45 routes -> 48 rows; expert 1 starts at row 48.
  EXPECT_EQ(std::vector<std::int64_t>(a.rows.begin(), a.rows.begin() + 8),
            (std::vector<std::int64_t>{0, 40, 80, 2, 42, 82, 4, 44}));
  EXPECT_EQ(std::vector<std::int64_t>(a.rows.begin() + 48, a.rows.begin() + 56),
            (std::vector<std::int64_t>{1, 41, 81, 3, 43, 83, 5, 45}));
}

TEST(AlignmentPaths, SmallPathOrderMatchesABruteForceSortOnRandomRoutings) {
  SeededRandom random(7);
  for (std::uint64_t i = 0; i < 300; ++i) {
    RoutingGeneratorConfig g;
    g.experts = 1 + static_cast<std::int64_t>(random.below(64));
    g.top_k = 1 + static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(std::min<std::int64_t>(g.experts, 8))));
    g.tokens = 1 + static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(1023 / g.top_k)));
    g.seed = i;
    const RoutingTrace trace = generate_routing(g);
    const Alignment a = align_routes(trace, 8, AlignmentOrder::native, i);
    ASSERT_EQ(a.path.path, AlignmentPath::small_batch) << trace.routes() << " routes, E " << trace.experts;
    // Reference: sort each expert's routes by (r mod T, r).
    const std::int64_t T = std::max<std::int64_t>(trace.experts, 32);
    std::map<std::int32_t, std::vector<std::int64_t>> by_expert;
    for (std::int64_t r = 0; r < trace.routes(); ++r) by_expert[trace.expert_of(r)].push_back(r);
    for (auto& [e, routes] : by_expert) {
      std::stable_sort(routes.begin(), routes.end(),
                       [T](std::int64_t x, std::int64_t y) { return x % T < y % T; });
      const std::int64_t start = a.expert_start[static_cast<size_t>(e)];
      ASSERT_EQ(std::vector<std::int64_t>(a.rows.begin() + start,
                                          a.rows.begin() + start + static_cast<std::ptrdiff_t>(routes.size())),
                routes)
          << "case " << i << ", expert " << e;
    }
  }
}

}  // namespace
}  // namespace stasim
