#include "sim/kernel/critical_path.hpp"

#include <algorithm>

namespace stasim {

CriticalPath critical_path(const ScheduleGraph& graph, const std::vector<OpTiming>& timings) {
  CriticalPath path;
  if (timings.empty()) return path;
  OpId last = 0;
  for (OpId v = 1; v < timings.size(); ++v)
    if (timings[v].end_ps > timings[last].end_ps) last = v;
  path.total_ps = timings[last].end_ps;
  Picoseconds busy = 0;
  // An op counts from its start to its end, or to the start of the op after it on the path when that one only
  // waited for its interval (the next instruction of an engine starts before the result is written).
  Picoseconds after = timings[last].end_ps;
  for (OpId v = last; v != kNoOp; v = timings[v].bound == BoundKind::start ? kNoOp : timings[v].bound_op) {
    path.ops.push_back(v);
    Picoseconds d = std::max<Picoseconds>(0, std::min(timings[v].end_ps, after) - timings[v].start_ps);
    after = timings[v].start_ps;
    const Op& op = graph.op(v);
    path.by_engine_ps[static_cast<int>(op.engine)] += d;
    path.by_phase_ps[graph.phases()[op.phase]] += d;
    if (op.engine == Engine::dma) path.by_dma_queue_ps[dma_queue_name(op.core, op.queue)] += d;
    busy += d;
  }
  std::reverse(path.ops.begin(), path.ops.end());
  path.wait_ps = path.total_ps - busy;
  return path;
}

std::vector<std::pair<Picoseconds, std::string>> longest_first(const std::map<std::string, Picoseconds>& parts) {
  std::vector<std::pair<Picoseconds, std::string>> out;
  for (const auto& [name, ps] : parts) out.emplace_back(ps, name.empty() ? "untagged" : name);
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace stasim
