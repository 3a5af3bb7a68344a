#include "dataflows/gather_groups.hpp"

#include <algorithm>

namespace stasim {

std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const std::vector<std::uint32_t>& elements,
                                                                   const std::vector<std::uint32_t>& tokens,
                                                                   std::uint32_t group_elements) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const std::uint32_t n = static_cast<std::uint32_t>(elements.size());
  std::uint32_t first = 0;
  while (first < n) {
    // floor(group / e) experts share one instruction group (512: 192 -> 2, 100 -> 5, 384 or more -> 1).
    std::uint32_t e = std::max<std::uint32_t>(elements[first], 1);
    std::uint32_t fill = std::max<std::uint32_t>(1, group_elements / e);
    std::uint32_t count = 1;
    while (first + count < n && count < fill && tokens[first + count] == tokens[first] && elements[first + count] == e) ++count;
    out.push_back({first, count});
    first += count;
  }
  return out;
}

}  // namespace stasim
