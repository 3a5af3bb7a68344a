// How many instructions an op is, as a profiler counts them (docs/hardware-model.md): a GpSimd gather is one
// selection call, plus one copy that widens stored indices narrower than the uint32 nc_n_gather takes; every
// other op is one instruction. nc_n_gather "corresponds to n groups of instructions in the underlying ISA, n =
// ceil(elems_per_partition / 512)" (ISA), but a profile counts the call once: the hybrid's measured counts (385
// unbatched, 97 with gather batching, at (4, 256) over six layers) are two per call, and with a count per
// 512-element group no grouping of its selections gives both. A software-DGE `descriptors` op is GpSimd time but
// no GpSimd instruction: the descriptors are generated "as part of the nisa.dma_copy instruction" (NKI ISA,
// dma_copy), an instruction a profile counts with the DMA it starts — and the measured counts are the selection
// calls and their widenings alone, while the measured GpSimd-active time holds a part that neither d nor gather
// batching moves, as the descriptor work of the hybrid's private loads does (docs/hardware-model.md).
#pragma once

#include <cstdint>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

std::uint32_t isa_instructions(const Op& op);

}  // namespace stasim
