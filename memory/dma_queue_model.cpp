#include "memory/dma_queue_model.hpp"

#include <algorithm>
#include <limits>

namespace stasim {

void DmaQueueModel::reset(std::size_t queues, std::uint32_t depth) {
  queues_.assign(queues, QueueState{});
  depth_ = std::max<std::uint32_t>(depth, 1);
}

Picoseconds DmaQueueModel::ready_ps(std::uint32_t q) const {
  const QueueState& s = queues_[q];
  if (s.in_flight >= depth_) return std::numeric_limits<Picoseconds>::max();
  return s.issue_free_ps;
}

OpId DmaQueueModel::holder(std::uint32_t q) const {
  const QueueState& s = queues_[q];
  // A queue that was full waited for the finish that freed a place, unless its issue stage was busy longer.
  return s.last_finished != kNoOp && s.last_finished_ps >= s.issue_free_ps ? s.last_finished : s.last_dispatched;
}

Picoseconds DmaQueueModel::dispatch(std::uint32_t q, OpId op, Picoseconds now_ps, Picoseconds issue_ps) {
  QueueState& s = queues_[q];
  s.issue_free_ps = now_ps + issue_ps;
  s.last_dispatched = op;
  s.last_finished = kNoOp;
  ++s.in_flight;
  return s.issue_free_ps;
}

void DmaQueueModel::finished(std::uint32_t q, OpId op, Picoseconds now_ps) {
  QueueState& s = queues_[q];
  if (s.in_flight == depth_) {  // a full queue's next dispatch waited for this one
    s.last_finished = op;
    s.last_finished_ps = now_ps;
  }
  --s.in_flight;
}

}  // namespace stasim
