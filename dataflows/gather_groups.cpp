#include "dataflows/gather_groups.hpp"

#include <algorithm>

namespace stasim {

std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const DecodeContext& ctx, std::uint32_t experts) {
  (void)ctx;
  std::uint32_t size = std::max<std::uint32_t>(experts, 1);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::uint32_t e = 0; e < experts; e += size) out.push_back({e, std::min(size, experts - e)});
  return out;
}

}  // namespace stasim
