// The expert groups of the batched gathers: half of a token's top-k per selection call, consecutive in J order,
// never mixing token counts.
#include <gtest/gtest.h>

#include "dataflows/gather_groups.hpp"

namespace stasim {
namespace {

using Groups = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

TEST(GatherGroups, HalfATokensTopKPerCall) {
  // top-8 (Qwen3): ceil(8 / 2) = 4 experts per call; top-6 (DeepSeek-V2-Lite): 3; top-1: 1; top-2 (Mixtral): 1.
  EXPECT_EQ(experts_per_gather_call(8), 4u);
  EXPECT_EQ(experts_per_gather_call(6), 3u);
  EXPECT_EQ(experts_per_gather_call(7), 4u);
  EXPECT_EQ(experts_per_gather_call(2), 1u);
  EXPECT_EQ(experts_per_gather_call(1), 1u);
  EXPECT_EQ(experts_per_gather_call(0), 1u);
}

TEST(GatherGroups, ConsecutiveExpertsInCallsOfTheGivenSize) {
  // Qwen3 at batch 1: the eight experts of a core in two calls of four, whatever (d, r) makes their elements.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(8, 1), 4), (Groups{{0, 4}, {4, 4}}));
  // Seven experts in calls of three: 3 + 3 + 1, the last call takes the rest.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(7, 1), 3), (Groups{{0, 3}, {3, 3}, {6, 1}}));
  // One expert per call is the unbatched loop.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(3, 1), 1), (Groups{{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_TRUE(gather_groups({}, 4).empty());
}

TEST(GatherGroups, AGroupKeepsOneTokenCount) {
  // Token-split batches: expert 2 serves two tokens (two elements per index): a call of its own, and the call
  // after it starts afresh.
  EXPECT_EQ(gather_groups({1, 1, 2, 1, 1, 1}, 4), (Groups{{0, 2}, {2, 1}, {3, 3}}));
  EXPECT_EQ(gather_groups({2, 2, 2, 1}, 2), (Groups{{0, 2}, {2, 1}, {3, 1}}));
}

}  // namespace
}  // namespace stasim
