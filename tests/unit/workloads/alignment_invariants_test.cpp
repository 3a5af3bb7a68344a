#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/core/input_error.hpp"
#include "workloads/alignment.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

// A hand-made routing: 3 tokens, k 2, E 4. Routes r = token*2 + slot:
//   token 0: experts 2, 0 -> routes 0 (e2), 1 (e0)
//   token 1: experts 0, 3 -> routes 2 (e0), 3 (e3)
//   token 2: experts 0, 2 -> routes 4 (e0), 5 (e2)
RoutingTrace small_trace() { return routing_from_rows({{2, 0}, {0, 3}, {0, 2}}, {}, 4, "test"); }

TEST(Alignment, HandMadeCanonicalLayout) {
  const Alignment a = align_routes(small_trace(), 2, AlignmentOrder::canonical);
  // Counts e0: 3 -> padded 4, e1: 0, e2: 2 -> 2, e3: 1 -> 2. Post-padded 4 + 0 + 2 + 2 = 8 rows, 4 blocks.
  EXPECT_EQ(a.num_tokens_post_padded, 8);
  EXPECT_EQ(a.blocks(), 4);
  EXPECT_EQ(a.sentinel, 6);  // M*k = 3*2
  EXPECT_EQ(a.rows, (std::vector<std::int64_t>{1, 2, 4, 6, 0, 5, 3, 6}));
  // Capacity: M*k + E*(b-1) = 6 + 4*1 = 10 rows -> 5 blocks; the fifth is unused (-1).
  EXPECT_EQ(a.capacity, 10);
  EXPECT_EQ(a.expert_ids, (std::vector<std::int32_t>{0, 0, 2, 3, -1}));
  EXPECT_EQ(a.buffer().size(), 10u);
  EXPECT_EQ(fingerprint_text(membership_fingerprint(a)), "0:0:1,2;0:1:4;2:0:0,5;3:0:3;");
}

TEST(Alignment, CapacityIsCappedWhenFewerRoutesThanExperts) {
  // M*k = 6 < E = 128: min(6 + 128*7, 6*8) = min(902, 48) = 48.
  EXPECT_EQ(alignment_capacity(6, 128, 8), 48);
  EXPECT_EQ(alignment_capacity(168, 128, 8), 168 + 128 * 7);  // 1064: no cap when M*k >= E
}

TEST(Alignment, ReferenceBlockSizeRule) {
  // 168 / 128 / 8 = 0.164 < 0.9 -> 8.
  EXPECT_EQ(reference_block_size(168, 128), 8);
  // 2048 routes / 128 = 16 per expert: 16/8 = 2, 16/16 = 1, 16/32 = 0.5 < 0.9 -> 32.
  EXPECT_EQ(reference_block_size(2048, 128), 32);
  // 100000 / 128 / 64 = 12.2: never below 0.9 -> 64.
  EXPECT_EQ(reference_block_size(100000, 128), 64);
}

TEST(Alignment, MembershipIgnoresOrderInsideABlockButNotAcrossBlocks) {
  const RoutingTrace trace = small_trace();
  const Alignment a = align_routes(trace, 2, AlignmentOrder::canonical);
  const Alignment inside = align_with_plan(trace, 2, {2, 1, 4, 6, 0, 5, 3, 6});   // swap rows 0 and 1
  const Alignment across = align_with_plan(trace, 2, {4, 2, 1, 6, 0, 5, 3, 6});   // route 1 moves to block 1
  EXPECT_EQ(membership_fingerprint(inside), membership_fingerprint(a));
  EXPECT_NE(membership_fingerprint(across), membership_fingerprint(a));
}

TEST(Alignment, BadPlansAndBlockSizesAreInputErrors) {
  const RoutingTrace trace = small_trace();
  EXPECT_THROW(align_with_plan(trace, 2, {1, 2, 4, 6, 0, 5, 3}), InputError);        // 7 rows, not 8
  EXPECT_THROW(align_with_plan(trace, 2, {0, 2, 4, 6, 1, 5, 3, 6}), InputError);     // route 0 (e2) in e0's range
  EXPECT_THROW(align_with_plan(trace, 2, {1, 1, 4, 6, 0, 5, 3, 6}), InputError);     // route 1 twice, 2 missing
  EXPECT_THROW(align_with_plan(trace, 2, {1, 2, 4, 9, 0, 5, 3, 6}), InputError);     // 9 is no route
  EXPECT_THROW(align_routes(trace, 0, AlignmentOrder::canonical), InputError);
  EXPECT_THROW(align_routes(trace, -8, AlignmentOrder::native, 1), InputError);
}

// Brute-force reference: per expert, its routes and padded row count, built with std::map instead of the
// prefix sums of the implementation.
void check_against_reference(const RoutingTrace& trace, std::int64_t b, const Alignment& a, std::uint64_t seed) {
  std::map<std::int32_t, std::vector<std::int64_t>> by_expert;
  for (std::int64_t r = 0; r < trace.routes(); ++r) by_expert[trace.expert_of(r)].push_back(r);
  std::int64_t row = 0;
  std::vector<std::int32_t> expected_ids;
  for (const auto& [e, routes] : by_expert) {
    const std::int64_t padded = ((static_cast<std::int64_t>(routes.size()) + b - 1) / b) * b;
    std::vector<std::int64_t> got(a.rows.begin() + row, a.rows.begin() + row + padded);
    // Valid routes first (the GPU kernel's atomics fill from the start), then sentinels.
    std::vector<std::int64_t> valid(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(routes.size()));
    for (auto it = got.begin() + static_cast<std::ptrdiff_t>(routes.size()); it != got.end(); ++it)
      ASSERT_EQ(*it, trace.routes()) << "seed " << seed << ": padding must hold the sentinel M*k";
    std::vector<std::int64_t> sorted = valid;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, routes) << "seed " << seed << ": expert " << e << " holds exactly its routes";
    if (a.order == AlignmentOrder::canonical) {
      ASSERT_EQ(valid, routes) << "canonical = by route id";
    }
    for (std::int64_t j = 0; j < padded / b; ++j) expected_ids.push_back(e);
    row += padded;
  }
  ASSERT_EQ(a.num_tokens_post_padded, row);
  ASSERT_EQ(static_cast<std::int64_t>(a.rows.size()), row);
  std::int64_t capacity = trace.routes() + trace.experts * (b - 1);
  if (trace.routes() < trace.experts) capacity = std::min(capacity, trace.routes() * b);
  ASSERT_EQ(a.capacity, capacity);
  ASSERT_GE(a.capacity, a.num_tokens_post_padded);  // the buffer always fits the padded rows
  expected_ids.resize(static_cast<size_t>((capacity + b - 1) / b), -1);
  ASSERT_EQ(a.expert_ids, expected_ids) << "seed " << seed;
}

TEST(Alignment, InvariantsHoldOnAThousandRandomInputs) {
  SeededRandom random(2024);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    RoutingGeneratorConfig g;
    g.tokens = 1 + static_cast<std::int64_t>(random.below(64));
    g.experts = 1 + static_cast<std::int64_t>(random.below(160));
    g.top_k = 1 + static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(std::min<std::int64_t>(g.experts, 8))));
    g.distribution = random.below(2) ? "zipf" : "uniform";
    g.zipf_exponent = 1.2;
    g.seed = i;
    const RoutingTrace trace = generate_routing(g);
    const std::int64_t b = random.below(3) == 0 ? reference_block_size(trace.routes(), trace.experts)
                                                : 1 + static_cast<std::int64_t>(random.below(16));
    const Alignment canonical = align_routes(trace, b, AlignmentOrder::canonical);
    const Alignment native = align_routes(trace, b, AlignmentOrder::native, i);
    check_against_reference(trace, b, canonical, i);
    check_against_reference(trace, b, native, i);
    // Counts, padding and owners do not depend on the history; replaying the native plan gives it back.
    ASSERT_EQ(native.expert_ids, canonical.expert_ids);
    ASSERT_EQ(align_with_plan(trace, b, native.rows).rows, native.rows);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Alignment, NativeOrderIsSeededAndVariesWithTheSeedOnTheLargePath) {
  RoutingGeneratorConfig g;
  g.tokens = 128;
  g.experts = 8;  // 128 routes per expert on average: room for many orders
  const RoutingTrace trace = generate_routing(g);
  // 128 tokens x top-8 = 1024 routes: not fewer than 1024, so upstream takes the large (atomic) path even with
  // only 8 experts, and the order is the history's.
  ASSERT_EQ(align_routes(trace, 8, AlignmentOrder::native, 5).path.path, AlignmentPath::large_batch);
  EXPECT_EQ(align_routes(trace, 8, AlignmentOrder::native, 5).rows, align_routes(trace, 8, AlignmentOrder::native, 5).rows);
  EXPECT_NE(align_routes(trace, 8, AlignmentOrder::native, 5).rows, align_routes(trace, 8, AlignmentOrder::native, 6).rows);
  EXPECT_NE(align_routes(trace, 8, AlignmentOrder::native, 5).rows, align_routes(trace, 8, AlignmentOrder::canonical).rows);
}

}  // namespace
}  // namespace stasim
