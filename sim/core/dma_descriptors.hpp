// What a DMA transfer's shape and ends imply, whoever times it: the DMA cost (memory/), software DGE on GpSimd
// (engines/), the kernel's time budget and the trace's HBM counter (sim/). Descriptors: one per contiguous run of
// each partition. A partition's bytes arrive in runs of `contiguous_bytes` (a column slice of a row-major matrix)
// or in one run, so a layout with short runs takes more descriptors (docs/hardware-model.md DMA; DMA: each engine
// moves its partitions' rows as separate descriptors).
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

bool touches_hbm(const Op& op);
bool crosses_cores(const Op& op);
// The issue time on its queue before any byte moves: issue_ns (descriptor setup, synchronisation and
// semaphore-to-start, DMA-BW), plus two link crossings across cores, plus hwdge_ns for a hardware-DGE transfer. A cross-core transfer
// is a sendrecv on the shared DMA queues (nki.isa.dma_engine.dma: "shared DMA with CoreBarrier synchronization"):
// a core barrier, in which each core writes a semaphore to the other and waits for the other's
// (nki.lnc.core_barrier), then the data, so the data leaves one crossing after both sides are ready and arrives
// after a second one.
Picoseconds dma_issue_ps(const Op& op, const HardwareConfig& hw);

// Bytes of the transfer one partition holds (rounded up).
std::uint64_t bytes_per_partition(const Op& op);
// partitions x ceil(bytes per partition / run), the run being contiguous_bytes when set and shorter.
std::uint64_t descriptor_count(const Op& op);

}  // namespace stasim
