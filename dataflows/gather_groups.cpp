#include "dataflows/gather_groups.hpp"

#include <algorithm>

namespace stasim {

std::uint32_t experts_per_gather_call(std::int64_t top_k) {
  return static_cast<std::uint32_t>(std::max<std::int64_t>(1, (top_k + 1) / 2));
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const std::vector<std::uint32_t>& tokens,
                                                                   std::uint32_t experts_per_call) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const std::uint32_t n = static_cast<std::uint32_t>(tokens.size());
  const std::uint32_t fill = std::max<std::uint32_t>(1, experts_per_call);
  std::uint32_t first = 0;
  while (first < n) {
    std::uint32_t count = 1;
    while (first + count < n && count < fill && tokens[first + count] == tokens[first]) ++count;
    out.push_back({first, count});
    first += count;
  }
  return out;
}

}  // namespace stasim
