// DMA transfer arithmetic (docs/hardware-model.md DMA). A transfer spends its issue on its queue (issue_ns:
// descriptor setup, synchronisation and semaphore-to-start, DMA-BW; plus two link crossings across cores; plus
// the hardware-DGE instruction, ~600 ns on NC-v3, ARCH-v3/DGE), then moves its bytes at its bandwidth share,
// finishing no earlier than the core's descriptor processing has done its descriptors x descriptor_ns
// (memory/dma_queue_model.hpp). A transfer of P partitions runs on ceil(P / (partitions / engines)) engines
// (DMA: each engine serves 8 partitions; a 4-partition transfer ran on one engine), which cap its byte rate; a
// DMA transpose moves at most 90% of that from HBM and 50% within SBUF (ARCH-v3). Descriptors are one per
// contiguous run of each partition; the issue time is dma_issue_ps (both in sim/core/dma_descriptors.hpp).
// Descriptor processing moves no bytes: it takes no HBM or link bandwidth from other transfers (DMA-BW: small
// transfers are limited by the DMA packet rate, not by HBM bandwidth).
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim::cost {

struct DmaPlan {
  Picoseconds issue_ps = 0;         // before any byte moves
  Picoseconds descriptor_ps = 0;    // its descriptors on the core's descriptor processing
  double max_bytes_per_ps = 0;      // its engines' bandwidth
  std::uint32_t engines = 1;
  std::uint64_t descriptors = 1;
};

DmaPlan plan_dma(const Op& op, const HardwareConfig& hw);
// ceil(partitions / (sbuf partitions / DMA engines)), between 1 and the core's DMA engines.
std::uint32_t dma_engines_used(const Op& op, const HardwareConfig& hw);

}  // namespace stasim::cost
