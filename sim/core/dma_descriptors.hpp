// How many descriptors a DMA transfer's shape takes: one per contiguous run of each partition. A partition's
// bytes arrive in runs of `contiguous_bytes` (a column slice of a row-major matrix) or in one run, so a layout
// with short runs takes more descriptors (docs/hardware-model.md DMA; DMA: each engine moves its partitions'
// rows as separate descriptors). Shared by the DMA cost (memory/) and software DGE on GpSimd (engines/).
#pragma once

#include <cstdint>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

// Bytes of the transfer one partition holds (rounded up).
std::uint64_t bytes_per_partition(const Op& op);
// partitions x ceil(bytes per partition / run), the run being contiguous_bytes when set and shorter.
std::uint64_t descriptor_count(const Op& op);

}  // namespace stasim
