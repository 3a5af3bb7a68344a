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

Intervals merged(const Intervals& a, const Intervals& b) {
  Intervals out(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  return out;
}

}  // namespace

void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& r) {
  // Each queue runs in program order, so its intervals come sorted by start: merge queues instead of sorting.
  std::vector<std::array<Intervals, kEngineCount>> per_core(hw.lnc);
  r.per_core.assign(hw.lnc, {});
  r.total_ps = 0;
  for (const Queue& q : graph.queues()) {
    Intervals mine;
    mine.reserve(q.ops.size());
    for (OpId v : q.ops) mine.emplace_back(r.ops[v].start_ps, r.ops[v].end_ps);
    int e = static_cast<int>(q.engine);
    Intervals& into = per_core[q.core][e];
    into = into.empty() ? std::move(mine) : merged(into, mine);
  }
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
  for (int e = 0; e < kEngineCount; ++e) {
    Intervals all;
    for (std::uint32_t c = 0; c < hw.lnc; ++c) {
      r.per_core[c][e].active_ps = sorted_union_length(per_core[c][e]);
      r.per_core[c][e].active_sum_ps = r.per_core[c][e].active_ps;
      r.engines[e].active_sum_ps += r.per_core[c][e].active_ps;
      all = all.empty() ? std::move(per_core[c][e]) : merged(all, per_core[c][e]);
      Intervals().swap(per_core[c][e]);  // keep the peak memory at one copy of the intervals
    }
    r.engines[e].active_ps = sorted_union_length(all);
  }
  r.dma_active_ps = r.engines[static_cast<int>(Engine::dma)].active_ps;
}

}  // namespace stasim
