// GpSimd gathers as a kernel issues them (docs/hardware-model.md; ISA: nc_n_gather, local_gather). One
// selection call, whatever its size: nc_n_gather runs as ceil(elems per partition / 512) groups of ISA
// instructions, but the call pays GpSimd's start once and a profile counts it once (sim/core/isa_instructions.hpp:
// the measured instruction counts are per call). nc_n_gather needs uint32 indices: narrower stored indices
// (uint8 code indices) are widened first by a GpSimd copy, an instruction of its own that pays the start too
// (the ISA's GpSimd formulas are all GPSIMD_START + work, e.g. iota = 150 + N). Each of the 8 GpSimd cores owns 16
// partitions, one per 32-bit lane (ARCH-v2), so partitions run in parallel and the time follows the elements of
// one partition:
//   cycles = start_cycles                                           the call's GPSIMD_START (ISA)
//          + (elements / per_index) x gather_index_cycles           the per-index part of local_gather's
//          + elements x gather_word_cycles / min(4 / dtype bytes,    cost, amortised over the elements an index
//                                                per_index)         fetches; narrow data packs into 32-bit words
//          + [index widening] start_cycles + elements / per_index   a tensor_copy (ISA) when index_bytes < 4
// ISA's local_gather formula, 150 + n_idx x epi / C with C = ((28 + t epi) / (t epi)) / min(4/dtype, epi), is
// read with C as cycles per element (28/t per index plus one per word), as printed it would make more elements
// per index slower, against the doc's own "improves throughput".
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"

namespace stasim::cost {

// GpSimd cycles of the gather (the formula above); its instruction count is sim/core/isa_instructions.hpp.
double gather_cycles(const EngineConfig& g, const Op& op);

}  // namespace stasim::cost
