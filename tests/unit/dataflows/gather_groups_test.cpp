// The expert groups of the batched gathers: as many experts as one ISA group per partition takes (512 elements),
// consecutive in J order, never mixing token counts.
#include <gtest/gtest.h>

#include "dataflows/gather_groups.hpp"

namespace stasim {
namespace {

using Groups = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

TEST(GatherGroups, AsManyExpertsAsOneInstructionGroupTakes) {
  // Qwen3 (8, 384), H split: 128 blocks on 128 partitions x I 192 = 192 elements per expert: floor(512 / 192)
  // = 2 experts per group, 4 groups for top-8.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(8, 192), std::vector<std::uint32_t>(8, 1), 512),
            (Groups{{0, 2}, {2, 2}, {4, 2}, {6, 2}}));
  // (4, 256): 2 blocks per partition x 192 = 384 elements: an expert fills most of a group by itself.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(3, 384), std::vector<std::uint32_t>(3, 1), 512),
            (Groups{{0, 1}, {1, 1}, {2, 1}}));
  // 100 elements: 5 per group; the last group takes the rest.
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(7, 100), std::vector<std::uint32_t>(7, 1), 512), (Groups{{0, 5}, {5, 2}}));
  EXPECT_TRUE(gather_groups({}, {}, 512).empty());
}

TEST(GatherGroups, TheGroupSizeIsTheHardwares) {
  // 192 elements per expert: 1024-element groups take floor(1024 / 192) = 5 experts, 128-element groups take
  // one (an expert larger than a group is a group of its own).
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(8, 192), std::vector<std::uint32_t>(8, 1), 1024),
            (Groups{{0, 5}, {5, 3}}));
  EXPECT_EQ(gather_groups(std::vector<std::uint32_t>(3, 192), std::vector<std::uint32_t>(3, 1), 128),
            (Groups{{0, 1}, {1, 1}, {2, 1}}));
}

TEST(GatherGroups, AGroupKeepsOneTokenCount) {
  // Token-split batches: expert 2 serves two tokens (twice the elements, two per index): a group of its own.
  EXPECT_EQ(gather_groups({128, 128, 256, 128, 128}, {1, 1, 2, 1, 1}, 512), (Groups{{0, 2}, {2, 1}, {3, 2}}));
}

}  // namespace
}  // namespace stasim
