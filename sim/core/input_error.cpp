#include "sim/core/input_error.hpp"

#include <algorithm>
#include <set>

namespace stasim {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

namespace {

// Two checks reaching the same conclusion about the same place report it once.
std::vector<std::string> unique_in_order(std::vector<std::string> problems) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& p : problems)
    if (seen.insert(p).second) out.push_back(std::move(p));
  return out;
}

}  // namespace

InputError::InputError(std::vector<std::string> problems)
    : std::runtime_error(join_lines(unique_in_order(problems))), problems_(unique_in_order(std::move(problems))) {}

std::string nearest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace stasim
