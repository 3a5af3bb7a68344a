// The figures a device profile shows for part of a run: only the ops a predicate keeps (e.g. the decoder layers,
// without the embedding gather and the LM head that a profile "over six decoder layers" leaves out), measured
// per physical core the way the profiler measures an engine (time with at least one of its instructions
// executing) and summed over the rank's physical cores.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct WindowFigures {
  Picoseconds span_ps = 0;  // first kept op's start to the last kept op's end
  // Per engine: the union of the kept ops' intervals on each physical core, summed over the cores (what a
  // per-core profile of the rank adds up to), and the union over the rank's cores (at least one core busy).
  std::array<Picoseconds, kEngineCount> active_sum_ps{};
  std::array<Picoseconds, kEngineCount> active_union_ps{};
  // The union over the rank of DMA transfers and collectives: the collective-communication cores move a
  // collective's data with the same DMA engines, so a profile's DMA-active time includes it.
  Picoseconds dma_with_collectives_union_ps = 0;
  std::array<std::uint64_t, kEngineCount> instructions{};  // ISA instructions of the kept ops
  std::uint64_t hbm_read_bytes = 0;
};

// Ops that did not run (start and end unset) are left out; a window that keeps no op is all zeros.
WindowFigures summarize_window(const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& result,
                               const std::function<bool(const Op&)>& keep);

// The decoder layers of a decode step: every op but the embedding's and the LM head's (phases "embedding" and
// "lm_head", as the layer blocks tag them).
bool in_decoder_layers(const ScheduleGraph& graph, const Op& op);

}  // namespace stasim
