// The public header for embedding the simulator in another program: build a decode request, run it, and get
// the result object that `stasim run --json` is written from. Link the CMake target `stasim_library`.
//
//   stasim::Simulator sim;                  // the built-in dataflows; the kernel is made on first use
//   stasim::RunRequest request;             // defaults: the shipped Qwen3-30B-A3B, cardan, trn3-calibrated
//   request.layers = 2;
//   stasim::DecodeRun run = sim.run(request);
//   nlohmann::json doc = sim.json(run);     // the document of `stasim run --json`; run.result: per-op timings
//
// Every simulation of a process runs on that process's one SystemC kernel, one after another: a Simulator is
// not to be used from several threads at once (use processes, as sim/studies/worker_pool.hpp does). Bad input
// throws stasim::InputError (its message names the file:line:col or key), a failed simulation
// stasim::SimulationError (stasim::DeadlockError when ops never ran).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "dataflows/dataflow_registry.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {

class Simulator {
 public:
  Simulator() { register_builtin(registry_); }

  // Builds, validates and simulates one decode step (with `down = "auto"`, the four down schedules, keeping
  // the fastest).
  DecodeRun run(const RunRequest& request) const { return run_decode(request, registry_); }
  // The stable JSON document of `stasim run --json` (sorted keys).
  static nlohmann::json json(const DecodeRun& run) { return decode_json(run); }
  // The human summary `stasim run` prints.
  static void print(std::ostream& out, const DecodeRun& run) { print_decode(out, run); }

  // The dataflows a request may name; add one with registry().add(...) before running it.
  DataflowRegistry& registry() { return registry_; }
  const DataflowRegistry& registry() const { return registry_; }

 private:
  DataflowRegistry registry_;
};

}  // namespace stasim
