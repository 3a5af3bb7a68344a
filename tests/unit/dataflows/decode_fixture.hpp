// Builds decode-step graphs of the shipped models for structural tests (no kernel runs here).
#pragma once

#include <gtest/gtest.h>

#include <string>

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

}  // namespace stasim::test
