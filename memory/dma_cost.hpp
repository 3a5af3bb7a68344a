// DMA transfer arithmetic (docs/hardware-facts.md §4 DMA): a fixed cost per transfer, and the efficiency knee:
// a transfer with fewer than `knee` bytes per partition moves bytes x knee / bytes_per_partition effective
// bytes, i.e. it costs as much as knee x partitions bytes. When the source is strided (a column slice of a
// row-major matrix), each partition's bytes arrive in runs of `contiguous` bytes, and the run is what the knee
// sees: min(bytes per partition, contiguous).
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim::cost {

double dma_effective_bytes(std::uint64_t bytes, std::uint32_t partitions, double knee_bytes_per_partition,
                           std::uint32_t contiguous = 0);
// fixed_ns, plus the link latency for a cross-core transfer, plus the hardware-DGE instruction (~600 ns on
// NC-v3, A2/A7) on the issuing queue for an hwdge transfer.
Picoseconds dma_fixed_ps(const Op& op, const HardwareConfig& hw);
bool touches_hbm(const Op& op);
bool crosses_cores(const Op& op);

}  // namespace stasim::cost
