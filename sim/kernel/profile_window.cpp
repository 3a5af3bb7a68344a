#include "sim/kernel/profile_window.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/core/isa_instructions.hpp"
#include "sim/kernel/result_summary.hpp"

namespace stasim {

WindowFigures summarize_window(const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& result,
                               const std::function<bool(const Op&)>& keep) {
  using Intervals = std::vector<std::pair<Picoseconds, Picoseconds>>;
  WindowFigures w;
  const std::uint32_t cores = std::max<std::uint32_t>(1, hw.lnc);
  std::vector<std::array<Intervals, kEngineCount>> per_core(cores);
  Picoseconds first = -1, last = -1;
  for (OpId v = 0; v < graph.size(); ++v) {
    const OpTiming& t = result.ops[v];
    if (t.start_ps < 0 || t.end_ps < t.start_ps) continue;
    const Op& op = graph.op(v);
    if (!keep(op)) continue;
    const int e = static_cast<int>(op.engine);
    per_core[std::min<std::uint32_t>(op.core, cores - 1)][e].emplace_back(t.start_ps, t.end_ps);
    w.instructions[e] += isa_instructions(op);
    if (op.engine == Engine::dma && op.src == Location::hbm) w.hbm_read_bytes += op.bytes;
    first = first < 0 ? t.start_ps : std::min(first, t.start_ps);
    last = std::max(last, t.end_ps);
  }
  w.span_ps = first < 0 ? 0 : last - first;
  for (int e = 0; e < kEngineCount; ++e) {
    Intervals all;
    for (auto& core : per_core) {
      all.insert(all.end(), core[e].begin(), core[e].end());
      w.active_sum_ps[e] += union_length(core[e]);
    }
    w.active_union_ps[e] = union_length(all);
  }
  Intervals moving;
  for (auto& core : per_core)
    for (Engine e : {Engine::dma, Engine::collective})
      moving.insert(moving.end(), core[static_cast<int>(e)].begin(), core[static_cast<int>(e)].end());
  w.dma_with_collectives_union_ps = union_length(moving);
  return w;
}

bool in_decoder_layers(const ScheduleGraph& graph, const Op& op) {
  const std::string& phase = graph.phases()[op.phase];
  return phase != "embedding" && phase != "lm_head";
}

}  // namespace stasim
