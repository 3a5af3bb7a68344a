// How far a mistyped word is from the words it could have meant: the did-you-mean of every "unknown key",
// "unknown option", "unknown command" and "no model 'NAME'" message. The distance is the optimal string alignment
// distance (Damerau-Levenshtein without overlapping edits): one insertion, deletion, substitution or swap of two
// neighbouring characters costs 1, so both "rn" -> "run" and "rnu" -> "run" are one typo away.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace stasim {

std::size_t edit_distance(const std::string& a, const std::string& b);

// Bounds that keep every error path fast whatever the input (README "Robustness"): a word longer than
// kMaxComparedLength is compared with nothing, a candidate whose length differs from the word's by more than the
// edits allowed is skipped (it cannot be close enough), and at most kMaxComparedCandidates candidates are compared
// (the first ones, in the list's order); so one suggestion costs at most ~2,000 x 256 x 256 steps.
constexpr std::size_t kMaxComparedLength = 256;
constexpr std::size_t kMaxComparedCandidates = 2000;

// `word` as a message shows it: at most kMaxComparedLength characters, a longer one cut with "... (N characters)".
std::string shown_word(const std::string& word);

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo: at most
// max(2, |word| / 3) edits (ties: the first candidate in the list). A candidate that starts with `word`
// (at least two characters of it, "qwen3" -> "qwen3-30b-a3b") also matches, at a distance after every real typo.
std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for the nearest match, "" when there is none: the tail every such message carries.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace stasim
