#include "sim/result_summary.hpp"

#include <algorithm>

namespace stasim {

Picoseconds union_length(std::vector<std::pair<Picoseconds, Picoseconds>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
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
  if (open) total += cur_end - cur_start;
  return total;
}

void summarize_activity(const ScheduleGraph& graph, const HardwareConfig& hw, SimResult& r) {
  using Intervals = std::vector<std::pair<Picoseconds, Picoseconds>>;
  std::vector<std::array<Intervals, kEngineCount>> per_core(hw.lnc);
  std::array<Intervals, kEngineCount> all;
  r.per_core.assign(hw.lnc, {});
  r.total_ps = 0;
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& op = graph.op(v);
    const OpTiming& t = r.ops[v];
    int e = static_cast<int>(op.engine);
    r.total_ps = std::max(r.total_ps, t.end_ps);
    per_core[op.core][e].emplace_back(t.start_ps, t.end_ps);
    r.per_core[op.core][e].instructions++;
    r.engines[e].instructions++;
    if (op.engine == Engine::dma) {
      r.dma_transfers++;
      if (op.src == Location::hbm) r.hbm_read_bytes += op.bytes;
      if (op.dst == Location::hbm) r.hbm_write_bytes += op.bytes;
    }
  }
  for (std::uint32_t c = 0; c < hw.lnc; ++c) {
    for (int e = 0; e < kEngineCount; ++e) {
      r.per_core[c][e].active_ps = union_length(per_core[c][e]);
      all[e].insert(all[e].end(), per_core[c][e].begin(), per_core[c][e].end());
      Intervals().swap(per_core[c][e]);  // keep the peak memory at one copy of the intervals
    }
  }
  for (int e = 0; e < kEngineCount; ++e) r.engines[e].active_ps = union_length(all[e]);
  r.dma_active_ps = r.engines[static_cast<int>(Engine::dma)].active_ps;
}

}  // namespace stasim
