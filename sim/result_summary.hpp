// Derives the engine, DMA and HBM figures of a SimResult from the graph and the per-op timings: active time is
// the union of an engine's instruction intervals (the profiler's definition), DMA active time the union of
// intervals with at least one transfer in flight.
#pragma once

#include <utility>
#include <vector>

#include "sim/hardware_config.hpp"
#include "sim/schedule_graph.hpp"
#include "sim/sim_result.hpp"

namespace stasim {

// Total length of the union of [start, end) intervals (sorted in place).
Picoseconds union_length(std::vector<std::pair<Picoseconds, Picoseconds>>& intervals);

void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& result);

}  // namespace stasim
