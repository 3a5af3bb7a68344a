#include "dataflows/decode_context.hpp"

namespace stasim {

std::string label(std::uint32_t core, const std::string& block) {
  std::string out;
  out.reserve(block.size() + 4);
  out.push_back('c');
  out.append(std::to_string(core));
  out.push_back('.');
  out.append(block);
  return out;
}

}  // namespace stasim
