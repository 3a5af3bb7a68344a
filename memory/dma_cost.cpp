#include "memory/dma_cost.hpp"

#include <algorithm>

#include "sim/core/dma_descriptors.hpp"

namespace stasim::cost {
namespace {

constexpr double kTransposeFromHbm = 0.9, kTransposeWithinSbuf = 0.5;

}  // namespace

std::uint32_t dma_engines_used(const Op& op, const HardwareConfig& hw) {
  const std::uint32_t engines = std::max<std::uint32_t>(hw.dma.engines, 1);
  const std::uint32_t per_engine = std::max<std::uint32_t>(1, hw.sbuf.partitions / engines);
  const std::uint32_t partitions = std::max<std::uint32_t>(op.partitions, 1);
  return std::min(engines, (partitions + per_engine - 1) / per_engine);
}

DmaPlan plan_dma(const Op& op, const HardwareConfig& hw) {
  DmaPlan plan;
  plan.issue_ps = dma_issue_ps(op, hw);
  plan.engines = dma_engines_used(op, hw);
  plan.descriptors = descriptor_count(op);
  plan.descriptor_ps = ps_from_ns(static_cast<double>(plan.descriptors) * hw.dma.descriptor_ns);
  plan.max_bytes_per_ps = plan.engines * hw.dma.bytes_per_ns_per_engine / 1000.0;
  // DMA transpose (ARCH-v3, Trainium2): up to 90% of the DMA rate from HBM, up to 50% from SBUF to SBUF; stasim
  // takes those bounds on every generation (assumed for v2 and v4).
  if (op.dma_transpose) plan.max_bytes_per_ps *= op.src == Location::hbm ? kTransposeFromHbm : kTransposeWithinSbuf;
  return plan;
}

}  // namespace stasim::cost
