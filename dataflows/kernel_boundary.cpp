#include "dataflows/kernel_boundary.hpp"

namespace stasim {

KernelBoundary::KernelBoundary(KernelBuilder& b, std::uint32_t cores) : b_(b), cores_(cores) {
  const std::vector<Queue>& queues = b.graph().queues();
  lengths_.reserve(queues.size());
  for (const Queue& q : queues) {
    lengths_.push_back(q.ops.size());
    if (q.core < cores_ && !q.ops.empty()) tails_.push_back(q.ops.back());
  }
}

void KernelBoundary::close() {
  ScheduleGraph& g = b_.graph();
  const std::vector<Queue>& queues = g.queues();
  for (std::size_t q = 0; q < queues.size(); ++q) {
    if (queues[q].core >= cores_) continue;
    std::size_t first = q < lengths_.size() ? lengths_[q] : 0;
    if (first >= queues[q].ops.size()) continue;
    OpId head = queues[q].ops[first];
    for (OpId tail : tails_)
      if (tail != head) g.add_dep(tail, head, DepKind::control);
  }
}

}  // namespace stasim
