#include "sim/kernel/result_summary.hpp"

#include <algorithm>

#include "sim/core/isa_instructions.hpp"

namespace stasim {

namespace {

using Intervals = std::vector<std::pair<Picoseconds, Picoseconds>>;

// Union length of intervals fed in order of start.
class SortedUnion {
 public:
  void add(Picoseconds start_ps, Picoseconds end_ps) {
    if (!open_ || start_ps > cur_end_) {
      if (open_) total_ += cur_end_ - cur_start_;
      cur_start_ = start_ps;
      cur_end_ = end_ps;
      open_ = true;
    } else {
      cur_end_ = std::max(cur_end_, end_ps);
    }
  }
  Picoseconds length() const { return open_ ? total_ + cur_end_ - cur_start_ : 0; }

 private:
  Picoseconds total_ = 0, cur_start_ = 0, cur_end_ = -1;
  bool open_ = false;
};

// Union length of intervals already sorted by start.
Picoseconds sorted_union_length(const Intervals& intervals) {
  SortedUnion u;
  for (const auto& [s, e] : intervals) u.add(s, e);
  return u.length();
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

// The union lengths of one engine's queues, per core and over all of them, in one pass: a k-way merge by start
// over cursors into the queues (each is sorted by start: a queue runs in program order), so no interval is
// copied and each op's timing is read once; a core's intervals, taken out of that order, are in order of start
// too. The union of a set of intervals does not depend on the order of equal starts, so this equals sorting.
class EngineUnion {
 public:
  // `per_core` gets one length per core (it must have an entry for every queue's core); returns the union.
  Picoseconds lengths(const std::vector<const Queue*>& queues, const std::vector<OpTiming>& t,
                      std::vector<Picoseconds>& per_core) {
    std::vector<SortedUnion> cores(per_core.size());
    SortedUnion all;
    heads_.clear();
    for (std::uint32_t i = 0; i < queues.size(); ++i)
      if (!queues[i]->ops.empty()) heads_.push_back({t[queues[i]->ops[0]].start_ps, i, 0});
    std::make_heap(heads_.begin(), heads_.end(), later);
    while (!heads_.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), later);
      Head& h = heads_.back();
      const Queue& q = *queues[h.queue];
      const OpTiming& op = t[q.ops[h.position]];
      cores[q.core].add(op.start_ps, op.end_ps);
      all.add(op.start_ps, op.end_ps);
      if (++h.position < q.ops.size()) {
        // The merge jumps between queues, each of whose ops lie scattered through the timings (every op of the
        // graph has one): fetch a queue's timing some steps ahead, or each read waits for memory.
        if (h.position + kPrefetchOps < q.ops.size()) __builtin_prefetch(&t[q.ops[h.position + kPrefetchOps]]);
        h.start_ps = t[q.ops[h.position]].start_ps;
        std::push_heap(heads_.begin(), heads_.end(), later);
      } else {
        heads_.pop_back();
      }
    }
    for (std::size_t c = 0; c < cores.size(); ++c) per_core[c] = cores[c].length();
    return all.length();
  }

 private:
  struct Head {
    Picoseconds start_ps;
    std::uint32_t queue;
    std::uint32_t position;
  };
  static bool later(const Head& a, const Head& b) { return a.start_ps > b.start_ps; }
  static constexpr std::size_t kPrefetchOps = 8;
  std::vector<Head> heads_;
};

}  // namespace

void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& r,
                        const std::vector<Picoseconds>& measured_active_ps) {
  r.per_core.assign(hw.lnc, {});
  r.total_ps = 0;
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& op = graph.op(v);
    r.total_ps = std::max(r.total_ps, r.ops[v].end_ps);
    // Instructions, as the profiler counts them: a gather is its call plus its index widening.
    const std::uint32_t n = isa_instructions(op);
    r.per_core[op.core][static_cast<int>(op.engine)].instructions += n;
    r.engines[static_cast<int>(op.engine)].instructions += n;
    if (op.engine == Engine::dma) {
      r.dma_transfers++;
      if (op.src == Location::hbm) r.hbm_read_bytes += op.bytes;
      if (op.dst == Location::hbm) r.hbm_write_bytes += op.bytes;
    }
  }
  const bool measured = measured_active_ps.size() == (std::size_t{hw.lnc} + 1) * kEngineCount;
  EngineUnion union_of;
  std::vector<const Queue*> queues;
  std::vector<Picoseconds> per_core(hw.lnc);
  for (int e = 0; e < kEngineCount; ++e) {
    if (measured) {
      for (std::uint32_t c = 0; c < hw.lnc; ++c) per_core[c] = measured_active_ps[c * kEngineCount + e];
      r.engines[e].active_ps = measured_active_ps[hw.lnc * kEngineCount + e];
    } else {
      queues.clear();
      for (const Queue& q : graph.queues())
        if (static_cast<int>(q.engine) == e) queues.push_back(&q);
      r.engines[e].active_ps = union_of.lengths(queues, r.ops, per_core);
    }
    for (std::uint32_t c = 0; c < hw.lnc; ++c) {
      r.per_core[c][e].active_ps = per_core[c];
      r.per_core[c][e].active_sum_ps = per_core[c];
      r.engines[e].active_sum_ps += per_core[c];
    }
  }
  r.dma_active_ps = r.engines[static_cast<int>(Engine::dma)].active_ps;
}

}  // namespace stasim
