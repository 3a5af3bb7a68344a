#include "sim/kernel/result_summary.hpp"

#include <algorithm>

#include "sim/core/isa_instructions.hpp"

namespace stasim {

namespace {

using Intervals = std::vector<std::pair<Picoseconds, Picoseconds>>;

// Union length of intervals already sorted by start.
Picoseconds sorted_union_length(const Intervals& intervals) {
  Picoseconds total = 0, cur_start = 0, cur_end = -1;
  bool open = false;
  for (const auto& [s, e] : intervals) {
    if (!open || s > cur_end) {
      if (open) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
      open = true;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  return open ? total + cur_end - cur_start : 0;
}

}  // namespace

Picoseconds union_length(Intervals& intervals) {
  std::sort(intervals.begin(), intervals.end());
  return sorted_union_length(intervals);
}

Picoseconds intersection_length(Intervals a, Intervals b) {
  Intervals both(a);
  both.insert(both.end(), b.begin(), b.end());
  return union_length(a) + union_length(b) - union_length(both);
}

double overlap_share(const ScheduleGraph& graph, const SimResult& result, const std::function<bool(const Op&)>& of,
                     const std::function<bool(const Op&)>& during) {
  Intervals a, b;
  for (OpId id = 0; id < graph.size(); ++id) {
    const OpTiming& t = result.ops[id];
    if (t.end_ps <= t.start_ps) continue;
    const Op& op = graph.op(id);
    if (of(op)) a.emplace_back(t.start_ps, t.end_ps);
    if (during(op)) b.emplace_back(t.start_ps, t.end_ps);
  }
  if (a.empty()) return 0.0;
  const Picoseconds covered = intersection_length(a, b);
  return static_cast<double>(covered) / static_cast<double>(union_length(a));
}

namespace {

// Union length of the intervals of several queues, each already sorted by start (a queue runs in program
// order): a k-way merge by start over cursors into the queues, so no interval is copied. The union of a set of
// intervals does not depend on the order of equal starts, so this equals sorting them all.
class QueueUnion {
 public:
  Picoseconds length(const std::vector<const Queue*>& queues, const std::vector<OpTiming>& t) {
    heads_.clear();
    for (std::uint32_t i = 0; i < queues.size(); ++i)
      if (!queues[i]->ops.empty()) heads_.push_back({t[queues[i]->ops[0]].start_ps, i, 0});
    std::make_heap(heads_.begin(), heads_.end(), later);
    Picoseconds total = 0, cur_start = 0, cur_end = -1;
    bool open = false;
    while (!heads_.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), later);
      Head& h = heads_.back();
      const std::vector<OpId>& ops = queues[h.queue]->ops;
      const OpTiming& op = t[ops[h.position]];
      if (!open || op.start_ps > cur_end) {
        if (open) total += cur_end - cur_start;
        cur_start = op.start_ps;
        cur_end = op.end_ps;
        open = true;
      } else {
        cur_end = std::max(cur_end, op.end_ps);
      }
      if (++h.position < ops.size()) {
        h.start_ps = t[ops[h.position]].start_ps;
        std::push_heap(heads_.begin(), heads_.end(), later);
      } else {
        heads_.pop_back();
      }
    }
    return open ? total + cur_end - cur_start : 0;
  }

 private:
  struct Head {
    Picoseconds start_ps;
    std::uint32_t queue;
    std::uint32_t position;
  };
  static bool later(const Head& a, const Head& b) { return a.start_ps > b.start_ps; }
  std::vector<Head> heads_;
};

}  // namespace

void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& r) {
  r.per_core.assign(hw.lnc, {});
  r.total_ps = 0;
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& op = graph.op(v);
    r.total_ps = std::max(r.total_ps, r.ops[v].end_ps);
    // ISA instructions, as the profiler counts them: a gather is one per instruction group (plus its widening).
    const std::uint32_t n = isa_instructions(op, hw);
    r.per_core[op.core][static_cast<int>(op.engine)].instructions += n;
    r.engines[static_cast<int>(op.engine)].instructions += n;
    if (op.engine == Engine::dma) {
      r.dma_transfers++;
      if (op.src == Location::hbm) r.hbm_read_bytes += op.bytes;
      if (op.dst == Location::hbm) r.hbm_write_bytes += op.bytes;
    }
  }
  QueueUnion union_of;
  std::vector<const Queue*> of_core, of_rank;
  for (int e = 0; e < kEngineCount; ++e) {
    of_rank.clear();
    for (std::uint32_t c = 0; c < hw.lnc; ++c) {
      of_core.clear();
      for (const Queue& q : graph.queues())
        if (static_cast<int>(q.engine) == e && q.core == c) of_core.push_back(&q);
      of_rank.insert(of_rank.end(), of_core.begin(), of_core.end());
      r.per_core[c][e].active_ps = union_of.length(of_core, r.ops);
      r.per_core[c][e].active_sum_ps = r.per_core[c][e].active_ps;
      r.engines[e].active_sum_ps += r.per_core[c][e].active_ps;
    }
    r.engines[e].active_ps = union_of.length(of_rank, r.ops);
  }
  r.dma_active_ps = r.engines[static_cast<int>(Engine::dma)].active_ps;
}

}  // namespace stasim
