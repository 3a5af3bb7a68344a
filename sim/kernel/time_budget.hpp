// The simulated-time budget of a graph, checked before simulation. Op durations and DMA rates each pass their
// own range checks, yet in combination (2^64 bytes at 0.001 B/ns, a gather of 2^32 elements at 0.001 per
// cycle, a million such ops) they overflow int64 picoseconds: negative times, a total of 0, or a bandwidth
// sharing loop that never reaches its finishing time. Every op's longest possible time, and their sum with the
// semaphore latencies, must stay within kMaxSimulatedPs; otherwise InputError naming the op and the rate.
#pragma once

#include "sim/core/graph_validation.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

// 2^62 ps (53 days): half of int64, so sums of two in-budget times cannot overflow either.
constexpr double kMaxSimulatedPs = 4611686018427387904.0;

void check_time_budget(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {});

}  // namespace stasim
