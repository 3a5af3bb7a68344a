#include "sim/core/isa_instructions.hpp"

namespace stasim {

std::uint32_t isa_instructions(const Op& op) {
  if (op.kind == OpKind::descriptors) return 0;
  if (op.kind != OpKind::gather) return 1;
  return 1 + (op.index_bytes < 4 ? 1 : 0);
}

}  // namespace stasim
