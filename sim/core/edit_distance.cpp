#include "sim/core/edit_distance.hpp"

#include <algorithm>

namespace stasim {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // d[i][j] = distance between the first i characters of a and the first j of b; three rows suffice because a
  // swap looks back two rows.
  const std::size_t n = b.size();
  std::vector<std::size_t> before_previous(n + 1), previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before_previous[j - 2] + 1);
    }
    std::swap(before_previous, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

std::string shown_word(const std::string& word) {
  if (word.size() <= kMaxComparedLength) return word;
  return word.substr(0, kMaxComparedLength) + "... (" + std::to_string(word.size()) + " characters)";
}

std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > kMaxComparedLength) return "";
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  std::string prefix_match;
  std::size_t compared = 0;
  for (const std::string& candidate : candidates) {
    if (compared == kMaxComparedCandidates) break;
    if (candidate.size() > kMaxComparedLength) continue;
    ++compared;
    if (prefix_match.empty() && word.size() >= 2 && candidate.size() > word.size() &&
        candidate.compare(0, word.size(), word) == 0)
      prefix_match = candidate;
    // The distance is at least the difference of the lengths: a candidate that far off cannot win.
    const std::size_t apart = candidate.size() > word.size() ? candidate.size() - word.size() : word.size() - candidate.size();
    if (apart >= best_distance) continue;
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best.empty() ? prefix_match : best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string near = nearest_match(word, candidates);
  return near.empty() ? "" : " (did you mean '" + shown_word(near) + "'?)";
}

}  // namespace stasim
