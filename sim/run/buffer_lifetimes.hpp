// When each buffer of a schedule holds its space: from the start of the first op that uses it to the end of the
// last. The SBUF peak check (memory/sbuf_occupancy.hpp) and the trace's SBUF counter both read these.
#pragma once

#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct BufferLifetime {
  Picoseconds first_ps = -1;
  Picoseconds last_ps = -1;   // -1: no op used the buffer
  bool used() const { return last_ps >= 0; }
};

// One entry per graph.buffers() entry.
std::vector<BufferLifetime> buffer_lifetimes(const ScheduleGraph& graph, const std::vector<OpTiming>& timings);

}  // namespace stasim
