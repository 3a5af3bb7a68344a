// The expert groups of the hybrid's batched gathers: consecutive experts in J arrival order (the order their
// J_e loads were issued), each group one GpSimd selection per projection. A group is as large as one gather
// instruction may be under the ISA's limits, so that the next group's selections start while the previous
// group's experts reduce.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dataflows/decode_context.hpp"

namespace stasim {

// (first expert, count) per group, covering experts [0, experts).
std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const DecodeContext& ctx, std::uint32_t experts);

}  // namespace stasim
