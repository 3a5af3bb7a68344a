#include "dataflows/decode_context.hpp"

namespace stasim {

std::string label(std::uint32_t core, const std::string& block) { return "c" + std::to_string(core) + "." + block; }

}  // namespace stasim
