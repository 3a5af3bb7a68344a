#include "sim/kernel/run_state.hpp"

namespace stasim {

RunState::RunState(const ScheduleGraph& graph, const HardwareConfig& hw)
    : graph_(graph), hw_(hw), semaphore_ps_(ps_from_ns(hw.semaphore_ns)) {
  std::size_t n = graph.size();
  timing_.resize(n);
  remaining_.resize(n);
  ready_ps_.assign(n, 0);
  ready_by_.assign(n, kNoOp);
  for (OpId v = 0; v < n; ++v) remaining_[v] = static_cast<std::uint32_t>(boost::in_degree(v, graph.graph()));
  head_.assign(graph.queues().size(), 0);
  listeners_.assign(graph.queues().size(), nullptr);
}

bool RunState::depends_on_predecessor(OpId op) const {
  std::uint32_t q = graph_.queue_of(op);
  std::uint32_t h = head_[q];
  if (h == 0) return false;
  OpId prev = graph_.queues()[q].ops[h - 1];
  for (auto [e, end] = boost::in_edges(op, graph_.graph()); e != end; ++e)
    if (boost::source(*e, graph_.graph()) == prev) return true;
  return false;
}

OpId RunState::start(std::uint32_t queue, Picoseconds now_ps, OpId psum_wait) {
  const auto& ops = graph_.queues()[queue].ops;
  std::uint32_t h = head_[queue];
  OpId op = ops[h];
  OpTiming& t = timing_[op];
  t.start_ps = now_ps;
  // The binding constraint is the latest one; ties go to data dependencies, then PSUM, then program order.
  Picoseconds best = -1;
  if (ready_by_[op] != kNoOp) {
    best = ready_ps_[op];
    t.bound = BoundKind::dep;
    t.bound_op = ready_by_[op];
  }
  if (psum_wait != kNoOp && timing_[psum_wait].end_ps > best) {
    best = timing_[psum_wait].end_ps;
    t.bound = BoundKind::psum;
    t.bound_op = psum_wait;
  }
  if (h > 0 && timing_[ops[h - 1]].end_ps > best) {
    best = timing_[ops[h - 1]].end_ps;
    t.bound = BoundKind::queue;
    t.bound_op = ops[h - 1];
  }
  head_[queue] = h + 1;
  return op;
}

void RunState::finish(OpId op, Picoseconds now_ps) {
  ++finished_;
  timing_[op].end_ps = now_ps;
  const Op& o = graph_.op(op);
  for (auto [e, end] = boost::out_edges(op, graph_.graph()); e != end; ++e) {
    OpId t = static_cast<OpId>(boost::target(*e, graph_.graph()));
    const Op& c = graph_.op(t);
    Picoseconds ready = now_ps + ((c.engine != o.engine || c.core != o.core) ? semaphore_ps_ : 0);
    if (ready_by_[t] == kNoOp || ready > ready_ps_[t]) {
      ready_ps_[t] = ready;
      ready_by_[t] = op;
    }
    if (--remaining_[t] == 0) {
      std::uint32_t q = graph_.queue_of(t);
      if (head(q) == t && listeners_[q]) listeners_[q]->wake(ready_ps_[t]);
    }
  }
  if (psum_) psum_->finished(op, now_ps);
}

}  // namespace stasim
