#include "memory/dma_cost.hpp"

namespace stasim::cost {

double dma_effective_bytes(std::uint64_t bytes, std::uint32_t partitions, double knee_bytes_per_partition,
                           std::uint32_t contiguous) {
  double per_partition = static_cast<double>(bytes) / partitions;
  if (contiguous > 0 && contiguous < per_partition) per_partition = contiguous;
  if (per_partition >= knee_bytes_per_partition) return static_cast<double>(bytes);
  return static_cast<double>(bytes) * knee_bytes_per_partition / per_partition;
}

bool touches_hbm(const Op& op) { return op.src == Location::hbm || op.dst == Location::hbm; }
bool crosses_cores(const Op& op) { return op.src == Location::peer || op.dst == Location::peer; }

Picoseconds dma_fixed_ps(const Op& op, const HardwareConfig& hw) {
  return ps_from_ns(hw.dma.fixed_ns + (crosses_cores(op) ? hw.link.latency_ns : 0.0) +
                    (op.dge == DgeMode::hwdge ? hw.dma.hwdge_ns : 0.0));
}

}  // namespace stasim::cost
