#include "sim/core/isa_instructions.hpp"

#include <algorithm>

namespace stasim {

std::uint32_t gather_groups(const EngineConfig& gpsimd, std::uint32_t elements_per_partition) {
  const std::uint32_t group = std::max<std::uint32_t>(gpsimd.gather_group_elements, 1);
  return std::max<std::uint32_t>(1, (elements_per_partition + group - 1) / group);
}

std::uint32_t isa_instructions(const Op& op, const HardwareConfig& hw) {
  if (op.kind != OpKind::gather) return 1;
  return gather_groups(hw.gpsimd, op.free) + (op.index_bytes < 4 ? 1 : 0);
}

}  // namespace stasim
