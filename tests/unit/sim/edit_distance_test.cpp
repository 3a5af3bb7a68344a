// The did-you-mean distance: each expected distance counts the edits by hand.
#include <gtest/gtest.h>

#include "sim/core/edit_distance.hpp"

namespace stasim {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "run"), 3u);          // three insertions
  EXPECT_EQ(edit_distance("run", ""), 3u);          // three deletions
  EXPECT_EQ(edit_distance("run", "run"), 0u);
  EXPECT_EQ(edit_distance("rn", "run"), 1u);        // insert u
  EXPECT_EQ(edit_distance("runn", "run"), 1u);      // delete n
  EXPECT_EQ(edit_distance("ran", "run"), 1u);       // a -> u
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // k->s, e->i, insert g
  EXPECT_EQ(edit_distance("trn4", "trn3"), 1u);     // 4 -> 3
}

TEST(EditDistance, SwapOfNeighboursIsOneEdit) {
  EXPECT_EQ(edit_distance("rnu", "run"), 1u);       // swap n,u (plain Levenshtein: 2)
  EXPECT_EQ(edit_distance("cmopare", "compare"), 1u);  // swap m,o
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  // Optimal string alignment edits each substring once: "ca" -> "ac" -> "abc" is not allowed, so 3 not 2.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, IsSymmetric) {
  for (const auto& [a, b] : {std::pair<const char*, const char*>{"sweep", "swepe"}, {"dataflow", "dataflows"},
                             {"qwen3", "qwen3-30b-a3b"}, {"", "x"}})
    EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

TEST(NearestMatch, PicksTheClosestWithinTheTypoLimit) {
  const std::vector<std::string> commands = {"run", "compare", "schedule", "sweep", "merge"};
  EXPECT_EQ(nearest_match("rn", commands), "run");         // 1 edit, limit max(2, 2/3) = 2
  EXPECT_EQ(nearest_match("swep", commands), "sweep");     // 1 edit
  EXPECT_EQ(nearest_match("comprae", commands), "compare");  // 1 swap
  EXPECT_EQ(nearest_match("banana", commands), "");        // nearest is 5+ edits away, limit max(2, 6/3) = 2
  EXPECT_EQ(nearest_match("fixd_ns", {"fixed_ns", "engines", "queues"}), "fixed_ns");
}

TEST(NearestMatch, TiesGoToTheFirstCandidate) {
  // "trn" is one insertion from both trn1 and trn3.
  EXPECT_EQ(nearest_match("trn", {"trn1", "trn3"}), "trn1");
  EXPECT_EQ(nearest_match("trn", {"trn3", "trn1"}), "trn3");
}

TEST(NearestMatch, APrefixOfALongNameMatchesWhenNoTypoDoes) {
  const std::vector<std::string> models = {"deepseek-v3", "mixtral-8x7b", "qwen3-30b-a3b", "qwen3-coder-30b-a3b"};
  // "qwen3" is 8 edits from qwen3-30b-a3b (limit 2) but is its beginning.
  EXPECT_EQ(nearest_match("qwen3", models), "qwen3-30b-a3b");
  EXPECT_EQ(nearest_match("mixtral", models), "mixtral-8x7b");
  EXPECT_EQ(nearest_match("q", models), "");  // one character says too little
}

TEST(DidYouMean, FormatsTheTail) {
  EXPECT_EQ(did_you_mean("rn", {"run"}), " (did you mean 'run'?)");
  EXPECT_EQ(did_you_mean("zzz", {"run"}), "");
}

// The bounds of README "Robustness": a word beyond 256 characters is compared with nothing, a candidate whose
// length alone puts it out of reach is skipped, only the first 2,000 candidates are compared, and a long name is
// cut in messages.
TEST(NearestMatch, IsBoundedInWordLengthAndCandidates) {
  const std::string huge(4 << 20, 'x');
  EXPECT_EQ(nearest_match(huge, {huge, "x"}), "");
  EXPECT_EQ(nearest_match(std::string(255, 'a') + "b", {std::string(255, 'a') + "c"}), std::string(255, 'a') + "c");  // 256: compared
  std::vector<std::string> many(kMaxComparedCandidates, "unrelated");
  many.push_back("run");  // past the cap
  EXPECT_EQ(nearest_match("rn", many), "");
  many.insert(many.begin(), "run");
  EXPECT_EQ(nearest_match("rn", many), "run");
  EXPECT_EQ(nearest_match("gate", {"gate_projection_weights", "gat"}), "gat");  // far in length: skipped
  EXPECT_EQ(shown_word("short"), "short");
  EXPECT_EQ(shown_word(std::string(300, 'n')), std::string(256, 'n') + "... (300 characters)");
}

}  // namespace
}  // namespace stasim
