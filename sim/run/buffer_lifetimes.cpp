#include "sim/run/buffer_lifetimes.hpp"

#include <algorithm>
#include <limits>

namespace stasim {

std::vector<BufferLifetime> buffer_lifetimes(const ScheduleGraph& graph, const std::vector<OpTiming>& timings) {
  std::vector<BufferLifetime> out(graph.buffers().size(), {std::numeric_limits<Picoseconds>::max(), -1});
  for (const BufferUse& use : graph.buffer_uses()) {
    BufferLifetime& b = out[use.buffer];
    b.first_ps = std::min(b.first_ps, timings[use.op].start_ps);
    b.last_ps = std::max(b.last_ps, timings[use.op].end_ps);
  }
  for (BufferLifetime& b : out)
    if (!b.used()) b.first_ps = -1;
  return out;
}

}  // namespace stasim
