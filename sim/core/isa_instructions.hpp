// How many ISA instructions an op is, as a profiler counts them (docs/hardware-model.md): a GpSimd gather is
// one instruction group per gather_group_elements elements of a partition (nki.isa.nc_n_gather: "n groups of
// instructions in the underlying ISA, n = ceil(elems_per_partition / 512)", ISA), plus one copy that widens
// stored indices narrower than the uint32 nc_n_gather takes; every other op is one instruction.
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"

namespace stasim {

// ceil(elements per partition / gather_group_elements), at least one.
std::uint32_t gather_groups(const EngineConfig& gpsimd, std::uint32_t elements_per_partition);
std::uint32_t isa_instructions(const Op& op, const HardwareConfig& hw);

}  // namespace stasim
