#include "sim/core/dma_descriptors.hpp"

#include <algorithm>

namespace stasim {

bool touches_hbm(const Op& op) { return op.src == Location::hbm || op.dst == Location::hbm; }
bool crosses_cores(const Op& op) { return op.src == Location::peer || op.dst == Location::peer; }

Picoseconds dma_issue_ps(const Op& op, const HardwareConfig& hw) {
  return ps_from_ns(hw.dma.issue_ns + (crosses_cores(op) ? 2 * hw.link.latency_ns : 0.0) +
                    (op.dge == DgeMode::hwdge ? hw.dma.hwdge_ns : 0.0));
}

std::uint64_t bytes_per_partition(const Op& op) {
  const std::uint64_t partitions = std::max<std::uint32_t>(op.partitions, 1);
  return (op.bytes + partitions - 1) / partitions;
}

std::uint64_t descriptor_count(const Op& op) {
  const std::uint64_t per_partition = std::max<std::uint64_t>(bytes_per_partition(op), 1);
  const std::uint64_t run = op.contiguous_bytes > 0 ? std::min<std::uint64_t>(op.contiguous_bytes, per_partition) : per_partition;
  return std::max<std::uint32_t>(op.partitions, 1) * ((per_partition + run - 1) / run);
}

}  // namespace stasim
