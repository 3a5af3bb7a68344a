// Shared helpers of the module tests: load trn3 (with overrides), build a schedule from inline YAML, run it in
// a forked SystemC kernel, and look up op timings by name.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/kernel/simulate.hpp"

namespace stasim::test {

inline HardwareConfig trn3(const std::vector<std::string>& sets = {}) {
  return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml", sets);
}

// trn3 without TensorE's dI/dt throttle, for tests that isolate another mechanism with exact matmul arithmetic
// (the throttle has its own: tests/unit/engines/tensor_throttle_test.cpp, tests/module/tensor_throttle_test.cpp).
inline HardwareConfig trn3_unthrottled() { return trn3({"core.engines.tensor.throttle_start_fraction=1"}); }

// trn3 with every engine's pipeline latency and the DMA completion latency at 0 (plus `sets`), for tests that
// isolate another mechanism with its own arithmetic: an op's result is then written when its interval ends. The
// latencies have their own tests (tests/module/engine_timing_test.cpp, dma_sharing_test.cpp).
inline HardwareConfig trn3_without_latency(std::vector<std::string> sets = {}) {
  for (const char* key : {"core.engines.tensor.latency_cycles=0", "core.engines.vector.latency_cycles=0",
                          "core.engines.scalar.latency_cycles=0", "core.engines.gpsimd.latency_cycles=0",
                          "core.dma.completion_ns=0"})
    sets.push_back(key);
  return trn3(sets);
}

struct Run {
  LoadedSchedule schedule;
  SimResult result;

  OpId id(const std::string& name) const {
    for (OpId v = 0; v < schedule.graph.size(); ++v)
      if (schedule.graph.name(v) == name) return v;
    ADD_FAILURE() << "no op " << name;
    return 0;
  }
  Picoseconds start(const std::string& name) const { return result.ops[id(name)].start_ps; }
  Picoseconds end(const std::string& name) const { return result.ops[id(name)].end_ps; }
  std::string bound(const std::string& name) const;
};

inline std::string Run::bound(const std::string& name) const {
  const OpTiming& t = result.ops[id(name)];
  switch (t.bound) {
    case BoundKind::start: return "start";
    case BoundKind::dep: return "dep:" + schedule.graph.name(t.bound_op);
    case BoundKind::queue: return "queue:" + schedule.graph.name(t.bound_op);
    case BoundKind::psum: return "psum:" + schedule.graph.name(t.bound_op);
  }
  return "";
}

// The schedule is loaded into the returned object first, so the graph the result refers to stays alive.
inline std::unique_ptr<Run> simulate_yaml(const std::string& yaml, const HardwareConfig& hw) {
  auto run = std::make_unique<Run>(Run{read_schedule(parse_yaml_text(yaml, "test.yaml"), "test.yaml"), {}});
  run->result = simulate(run->schedule.graph, hw, run->schedule.locator(), run->schedule.buffer_locator());
  return run;
}

}  // namespace stasim::test
