// The schedule graph for Graphviz (Boost.Graph's write_graphviz): one node per op labelled with its name,
// engine and simulated interval, one edge per dependency (anti dependencies dashed, control dotted), and the
// critical path drawn in red (its ops filled, the edges between consecutive path ops thick). A pure function
// of (graph, result).
#pragma once

#include <ostream>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

void write_dot(std::ostream& out, const ScheduleGraph& graph, const SimResult& result);

}  // namespace stasim
