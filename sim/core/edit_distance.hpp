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

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo: at most
// max(2, |word| / 3) edits (ties: the first candidate in the list). A candidate that starts with `word`
// (at least two characters of it, "qwen3" -> "qwen3-30b-a3b") also matches, at a distance after every real typo.
std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for the nearest match, "" when there is none: the tail every such message carries.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace stasim
