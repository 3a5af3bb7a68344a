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

}  // namespace stasim
