#include "sim/run/run_state.hpp"

namespace stasim {
namespace {

constexpr OpId kPrefetchAhead = 96;

}  // namespace

void RunState::reset(const RunGraph& run, const HardwareConfig& hw, std::uint64_t origin) {
  graph_ = run.graph;
  run_ = &run;
  hw_ = &hw;
  origin_ = origin;
  semaphore_ps_ = run.semaphore_ps;
  completion_ps_ = run.completion_ps;
  std::size_t n = graph_->size();
  timing_.assign(n, OpTiming{});
  graph_->in_degrees(remaining_);  // the kernel has no other use for in-edge lists
  head_.assign(graph_->queues().size(), 0);
  listeners_.assign(graph_->queues().size(), nullptr);
  psum_ = nullptr;
  finished_ = 0;
  activity_.reset(hw.lnc);
}

OpId RunState::start(std::uint32_t queue, Picoseconds now_ps, OpId psum_wait, OpId queue_op,
                     Picoseconds queue_ready_ps) {
  const Queue& q = graph_->queues()[queue];
  const auto& ops = q.ops;
  activity_.started(q.core, q.engine, now_ps);
  std::uint32_t h = head_[queue];
  OpId op = ops[h];
  OpTiming& t = timing_[op];
  // The binding constraint is the latest one; ties go to data dependencies, then PSUM, then program order.
  Picoseconds best = -1;
  if (t.bound_op != kNoOp) {  // the readiness recorded by finish(): its latest dependency and when it allowed
    best = t.start_ps;
    t.bound = BoundKind::dep;
  }
  t.start_ps = now_ps;
  if (psum_wait != kNoOp && timing_[psum_wait].end_ps > best) {
    best = timing_[psum_wait].end_ps;
    t.bound = BoundKind::psum;
    t.bound_op = psum_wait;
  }
  if (queue_op != kNoOp && queue_ready_ps > best) {
    best = queue_ready_ps;
    t.bound = BoundKind::queue;
    t.bound_op = queue_op;
  }
  head_[queue] = h + 1;
  // The queue's next op is looked at when this one ends (its dependency count, readiness and cost; a transfer's
  // record when it begins): a queue can lag far behind the ops finishing elsewhere, so fetch them meanwhile.
  if (h + 1 < ops.size()) {
    OpId next = ops[h + 1];
    __builtin_prefetch(&remaining_[next]);
    __builtin_prefetch(&timing_[next]);
    __builtin_prefetch(&run_->ops[next]);
  }
  return op;
}

void RunState::finish(OpId op, Picoseconds end_ps) {
  ++finished_;
  // The arrays of the loop in locals: a listener's wake() may run anywhere, but never resizes them, and without
  // the locals the compiler reloads every one of them on every edge.
  OpTiming* const timing = timing_.data();
  std::uint32_t* const remaining = remaining_.data();
  const RunOp* const ops = run_->ops.data();
  const RunDma* const dma = run_->dma.data();
  const ScheduleGraph& graph = *graph_;
  const Picoseconds semaphore_ps = semaphore_ps_;
  // A DMA's consumers wait for its completion semaphore (core.dma.completion_ns); other producers' consumers on
  // another engine or core wait for a semaphore hop.
  const bool from_dma = run_->ops[op].engine == Engine::dma;
  timing[op].end_ps = end_ps;
  // The ops a little after this one in id order are the ones about to be touched first (builders, like the
  // random DAG, make an op's dependencies shortly before it): their records come from memory meanwhile. A hint
  // only; it changes nothing but when the cache lines arrive.
  if (op + kPrefetchAhead < remaining_.size()) {
    __builtin_prefetch(&timing[op + kPrefetchAhead], 1);
    __builtin_prefetch(&ops[op + kPrefetchAhead]);
    __builtin_prefetch(&remaining[op + kPrefetchAhead], 1);
  }
  const RunOp& o = ops[op];
  activity_.finished(o.core, o.engine, end_ps);
  for (ScheduleGraph::EdgeId e : graph.out_edges(op)) {
    OpId t = graph.target(e);
    const RunOp& c = ops[t];
    // A transfer's own record is read when it begins, soon after its dependencies finish: fetch it meanwhile.
    if (c.engine == Engine::dma) __builtin_prefetch(&dma[c.aux]);
    Picoseconds ready = end_ps + (from_dma ? completion_ps_ : (c.engine != o.engine || c.core != o.core) ? semaphore_ps : 0);
    OpTiming& r = timing[t];  // not started yet: start_ps and bound_op hold its readiness
    if (r.bound_op == kNoOp || ready > r.start_ps) {
      r.start_ps = ready;
      r.bound_op = op;
    }
    if (--remaining[t] == 0) {
      std::uint32_t q = graph.queue_of(t);
      if (head(q) == t && listeners_[q]) listeners_[q]->wake(r.start_ps);
    }
  }
  if (psum_ && o.releases_bank >= 0) psum_->finished(op, end_ps);
}

}  // namespace stasim
