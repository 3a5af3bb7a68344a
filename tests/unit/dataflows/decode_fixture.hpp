// Builds decode-step graphs of the shipped models for structural tests (no kernel runs here).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/core/graph_validation.hpp"

namespace stasim::test {

inline HardwareConfig shipped_hw(const std::string& name = "trn3") {
  return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/" + name + ".yaml");
}
inline ModelSpec shipped_model(const std::string& name) {
  return load_model(std::string(STASIM_SOURCE_DIR) + "/configs/models/" + name + ".yaml");
}

struct Built {
  ModelSpec model;
  HardwareConfig hw;
  Representation rep;
  DataflowOptions options;
  DecodeGraph decode;
};

inline Built build(const std::string& model, const std::string& dataflow, DataflowOptions options = {},
                   std::int64_t d = 8, std::int64_t r = 384, std::int64_t K = 256) {
  DataflowRegistry registry;
  register_builtin(registry);
  Built b{shipped_model(model), shipped_hw(), {}, options, {}};
  const Dataflow& df = registry.find(dataflow);
  b.rep = df.representation(d, r, K);
  b.decode = build_decode_step(b.model, b.model.deployment, b.rep, b.hw, b.options, df.routed);
  return b;
}

// Ops whose label contains `part` (and, when given, starts with `prefix`).
inline std::size_t count_ops(const ScheduleGraph& g, const std::string& part, const std::string& prefix = "") {
  std::size_t n = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const std::string& name = g.name(v);
    if (name.find(part) != std::string::npos && name.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

// The op named `name` (kNoOp when none).
inline OpId find_named(const ScheduleGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v)
    if (g.name_view(v) == name) return v;
  return kNoOp;
}

// The direct predecessors (dependencies) of `op`.
inline std::vector<OpId> preds(const ScheduleGraph& g, OpId op) {
  std::vector<OpId> out;
  for (ScheduleGraph::EdgeId e : g.in_edges(op)) out.push_back(g.source(e));
  return out;
}

// Whether `op` waits, directly or through other ops, for `on`: through dependencies and through the program
// order of each in-order queue (an op starts after its queue predecessor).
inline bool waits_for(const ScheduleGraph& g, OpId op, OpId on) {
  std::vector<std::size_t> position(g.size(), 0);
  for (const Queue& q : g.queues())
    for (std::size_t i = 0; i < q.ops.size(); ++i) position[q.ops[i]] = i;
  std::vector<char> seen(g.size(), 0);
  std::vector<OpId> stack{op};
  while (!stack.empty()) {
    OpId v = stack.back();
    stack.pop_back();
    if (v == on) return true;
    if (seen[v]) continue;
    seen[v] = 1;
    std::vector<OpId> before = preds(g, v);
    if (position[v] > 0) before.push_back(g.queues()[g.queue_of(v)].ops[position[v] - 1]);
    for (OpId p : before)
      if (p >= on) stack.push_back(p);  // ops are added in order: nothing added before `on` can reach it
  }
  return false;
}

// The position of `op` in its queue's program order.
inline std::size_t queue_position(const ScheduleGraph& g, OpId op) {
  const std::vector<OpId>& ops = g.queues()[g.queue_of(op)].ops;
  return static_cast<std::size_t>(std::find(ops.begin(), ops.end(), op) - ops.begin());
}

}  // namespace stasim::test
