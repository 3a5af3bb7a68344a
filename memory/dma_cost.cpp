#include "memory/dma_cost.hpp"

#include <algorithm>

#include "sim/core/dma_descriptors.hpp"

namespace stasim::cost {

bool touches_hbm(const Op& op) { return op.src == Location::hbm || op.dst == Location::hbm; }
bool crosses_cores(const Op& op) { return op.src == Location::peer || op.dst == Location::peer; }

// A cross-core transfer is a sendrecv on the shared DMA queues (nki.isa.dma_engine.dma: "shared DMA with
// CoreBarrier synchronization"): a core barrier, then the data. In the barrier each core writes a semaphore to the
// other and waits for the other's (nki.lnc.core_barrier), so the data leaves one link crossing after both sides
// are ready and arrives after a second one: the link latency twice.
Picoseconds dma_fixed_ps(const Op& op, const HardwareConfig& hw) {
  return ps_from_ns(hw.dma.fixed_ns + (crosses_cores(op) ? 2 * hw.link.latency_ns : 0.0) +
                    (op.dge == DgeMode::hwdge ? hw.dma.hwdge_ns : 0.0));
}

std::uint32_t dma_engines_used(const Op& op, const HardwareConfig& hw) {
  const std::uint32_t engines = std::max<std::uint32_t>(hw.dma.engines, 1);
  const std::uint32_t per_engine = std::max<std::uint32_t>(1, hw.sbuf.partitions / engines);
  const std::uint32_t partitions = std::max<std::uint32_t>(op.partitions, 1);
  return std::min(engines, (partitions + per_engine - 1) / per_engine);
}

DmaPlan plan_dma(const Op& op, const HardwareConfig& hw) {
  DmaPlan plan;
  plan.issue_ps = dma_fixed_ps(op, hw);
  plan.engines = dma_engines_used(op, hw);
  plan.descriptors = descriptor_count(op);
  plan.descriptor_ps = ps_from_ns(static_cast<double>(plan.descriptors) * hw.dma.descriptor_ns / plan.engines);
  plan.max_bytes_per_ps = plan.engines * hw.dma.bytes_per_ns_per_engine / 1000.0;
  return plan;
}

}  // namespace stasim::cost
