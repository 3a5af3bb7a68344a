#include "sim/kernel/deadlock_report.hpp"

#include <unordered_map>

namespace stasim {
namespace {

std::string queue_name(const Queue& q) {
  std::string s = "core " + std::to_string(q.core) + " " + engine_name(q.engine);
  if (q.engine == Engine::dma) s += " queue " + std::to_string(q.dma_queue);
  return s;
}

}  // namespace

DeadlockReport::DeadlockReport(const ScheduleGraph& graph, const StuckSnapshot& s) : graph_(graph) {
  const auto& queues = graph.queues();
  std::vector<char> listed(graph.size(), 0);
  auto classify = [&](OpId v) {
    StuckOp out;
    out.op = v;
    OpId first_dep = kNoOp;
    for (ScheduleGraph::EdgeId e : graph.in_edges(v)) {
      OpId d = graph.source(e);
      if (s.finished[d]) continue;
      if (first_dep == kNoOp) first_dep = d;
      ++out.unfinished_deps;
    }
    OpId head = s.queue_head[graph.queue_of(v)];
    const Op& o = graph.op(v);
    if (head != v) {
      out.kind = WaitKind::queue;  // it cannot issue before the head of its queue, whatever else it waits for
      out.on = head;
    } else if (first_dep != kNoOp) {
      out.kind = WaitKind::dependency;
      out.on = first_dep;
    } else if (o.psum_bank >= 0 && o.psum_group != StuckSnapshot::kNoGroup) {
      std::uint32_t holder = s.psum_holder[o.core * s.psum_banks + static_cast<std::uint32_t>(o.psum_bank)];
      if (holder != StuckSnapshot::kNoGroup && holder != o.psum_group) {
        out.kind = WaitKind::psum;
        out.psum_group = holder;
        out.on = graph.psum_groups()[holder].release_op;
      }
    }
    stuck_.push_back(out);
    listed[v] = 1;
  };
  for (std::size_t q = 0; q < queues.size(); ++q)
    if (s.queue_head[q] != kNoOp && !s.finished[s.queue_head[q]]) classify(s.queue_head[q]);
  for (OpId v = 0; v < graph.size(); ++v)
    if (!s.finished[v] && !listed[v]) classify(v);

  // Every stuck op waits for another stuck op, so following the waits from any of them closes a cycle.
  if (stuck_.empty()) return;
  std::unordered_map<OpId, std::size_t> index;
  for (std::size_t i = 0; i < stuck_.size(); ++i) index[stuck_[i].op] = i;
  std::unordered_map<OpId, std::size_t> seen;
  std::vector<OpId> walk;
  OpId cur = stuck_.front().op;
  while (cur != kNoOp && !seen.count(cur)) {
    auto it = index.find(cur);
    if (it == index.end()) return;  // waits for an op that finished: the snapshot is inconsistent
    seen[cur] = walk.size();
    walk.push_back(cur);
    cur = stuck_[it->second].on;
  }
  if (cur == kNoOp) return;
  cycle_.assign(walk.begin() + static_cast<std::ptrdiff_t>(seen[cur]), walk.end());
}

std::string DeadlockReport::wait_text(const StuckOp& s, const OpLocator& name) const {
  auto quoted = [&](OpId v) { return "'" + graph_.name(v) + "'"; };
  std::string more;
  if (s.unfinished_deps > (s.kind == WaitKind::dependency ? 1u : 0u)) {
    std::uint32_t n = s.unfinished_deps - (s.kind == WaitKind::dependency ? 1u : 0u);
    more = s.kind == WaitKind::dependency
               ? " (and " + std::to_string(n) + " more unfinished " + (n == 1 ? "dependency" : "dependencies") + ")"
               : " (and " + std::to_string(n) + " unfinished " + (n == 1 ? "dependency" : "dependencies") + ")";
  }
  const Op& o = graph_.op(s.op);
  std::string text = name(s.op) + " (" + queue_name(graph_.queues()[graph_.queue_of(s.op)]) + "): ";
  switch (s.kind) {
    case WaitKind::dependency:
      return text + "waits for its dependency " + quoted(s.on) + more;
    case WaitKind::queue:
      return text + "queued behind " + quoted(s.on) + more;
    case WaitKind::psum: {
      const PsumGroup& g = graph_.psum_groups()[s.psum_group];
      return text + "needs PSUM bank " + std::to_string(o.psum_bank) + ", held by group '" + g.name + "' (from " +
             quoted(g.first_op) + ") until " + (s.on == kNoOp ? "a release that never comes" : quoted(s.on) + " releases it");
    }
    case WaitKind::unexplained:
      break;
  }
  return text + "ready but never issued (a simulator bug)" + more;
}

std::string DeadlockReport::text(const OpLocator& where, std::size_t max_listed) const {
  OpLocator name = where ? where : [this](OpId id) { return "op '" + graph_.name(id) + "'"; };
  std::string out = "deadlock: " + std::to_string(stuck_.size()) + " of " + std::to_string(graph_.size()) +
                    " ops never ran; the simulation ran out of events with them waiting:";
  for (std::size_t i = 0; i < stuck_.size() && i < max_listed; ++i) out += "\n  " + wait_text(stuck_[i], name);
  if (stuck_.size() > max_listed) out += "\n  ... and " + std::to_string(stuck_.size() - max_listed) + " more";
  if (!cycle_.empty()) {
    std::unordered_map<OpId, const StuckOp*> by_op;
    for (const StuckOp& s : stuck_) by_op[s.op] = &s;
    out += "\nwait cycle: ";
    for (std::size_t i = 0; i < cycle_.size(); ++i) {
      const StuckOp& s = *by_op[cycle_[i]];
      const char* how = s.kind == WaitKind::queue ? "queue order" : s.kind == WaitKind::psum ? "PSUM bank" : "dependency";
      out += std::string(i ? ", " : "") + "'" + graph_.name(cycle_[i]) + "' waits for '" +
             graph_.name(cycle_[(i + 1) % cycle_.size()]) + "' (" + how + ")";
    }
  }
  return out;
}

}  // namespace stasim
