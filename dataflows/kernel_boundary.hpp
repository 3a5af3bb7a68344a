// KernelBoundary: the boundary between two separately launched kernels on the cores of a rank, as between the
// compiler-lowered router or shared-expert projections and the MoE kernel (NxDI runs them "without kernel"
// when the fused MoE kernel does not take shared experts: neuronx-distributed moe_fused_tkg.py). The next
// kernel's first instruction on every queue (compute engines and DMA queues) waits for the previous kernel's
// last instruction on every queue of every core: a semaphore barrier, so nothing of the next kernel, in
// particular no weight DMA, starts before the previous one has ended. No launch cost is added beyond the
// semaphore hops (none is published); the barrier's price is the lost overlap.
#pragma once

#include <vector>

#include "dataflows/kernel_builder.hpp"

namespace stasim {

class KernelBoundary {
 public:
  // Marks the boundary at the current end of every queue of cores [0, cores).
  KernelBoundary(KernelBuilder& b, std::uint32_t cores);
  // Makes the first op emitted since the boundary on each queue of those cores wait for every queue's last op
  // before it. Call after the next kernel's first ops were emitted (and before the next boundary).
  void close();

 private:
  KernelBuilder& b_;
  std::uint32_t cores_;
  std::vector<std::size_t> lengths_;  // per queue of the graph at the boundary
  Deps tails_;
};

}  // namespace stasim
