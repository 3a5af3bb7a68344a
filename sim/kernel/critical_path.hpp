// The critical path of a finished simulation: from the op that ends last, step to whatever bound its start
// (its latest dependency, its queue predecessor, or the op that released its PSUM bank) until an op that
// started unconstrained. Time on the path not spent inside ops is waiting (semaphore latency, gaps).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

CriticalPath critical_path(const ScheduleGraph& graph, const std::vector<OpTiming>& timings);
// A breakdown of the path (by phase, by DMA queue) longest first, ties by name; "" is named "untagged".
std::vector<std::pair<Picoseconds, std::string>> longest_first(const std::map<std::string, Picoseconds>& parts);

}  // namespace stasim
