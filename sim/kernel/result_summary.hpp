// Derives the engine, DMA and HBM figures of a SimResult from the graph and the per-op timings: active time is
// the union of an engine's instruction intervals (the profiler's definition), DMA active time the union of
// intervals with at least one transfer in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

// Total length of the union of [start, end) intervals (sorted in place).
Picoseconds union_length(std::vector<std::pair<Picoseconds, Picoseconds>>& intervals);

// Length of the time covered by both unions, |∪a ∩ ∪b| = |∪a| + |∪b| − |∪(a ∪ b)|.
Picoseconds intersection_length(std::vector<std::pair<Picoseconds, Picoseconds>> a,
                                std::vector<std::pair<Picoseconds, Picoseconds>> b);

// Of the time at least one op matching `of` runs, the share during which at least one op matching `during` runs
// too (0 when no `of` op ran). E.g. how much of the down weights' DMA time overlaps the gate/up computation.
double overlap_share(const ScheduleGraph& graph, const SimResult& result, const std::function<bool(const Op&)>& of,
                     const std::function<bool(const Op&)>& during);

// Fills the result's engine, DMA and HBM figures from the graph and result.ops. Active times come from
// `measured_active_ps` when the kernel measured them (RawRun::active_ps: the same unions, taken as it ran),
// otherwise from a merge of each engine's queues by start time.
void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& result,
                        const std::vector<Picoseconds>& measured_active_ps = {});

}  // namespace stasim
