// AcceleratorModule: the SystemC top. It is the only place that knows engines and memory together: one
// EngineModule per compute queue, the DmaModule for all DMA queues and the PSUM bank model, all over one
// RunState, for the `lnc` physical cores of one simulated (logical) core.
//
// SystemC elaborates once per process and its clock never restarts, so the top is built once per process and
// runs graph after graph: each run binds the processes to the graph's queues (spawning more when a graph has
// more queues than any before), starts them in the order SystemC's initialization would, and counts time from
// the clock's value at its start. A run leaves nothing pending behind it (the kernel stops when no event is
// left), so the next run starts from the same state as a fresh process; a deadlocked run too.
#pragma once

#include <systemc>

#include <memory>
#include <vector>

#include "engines/engine_module.hpp"
#include "memory/dma_module.hpp"
#include "memory/psum_bank_model.hpp"
#include "sim/core/graph_validation.hpp"
#include "sim/run/run_state.hpp"

namespace stasim {

class AcceleratorModule {
 public:
  // This process's accelerator, built on first use and kept until the process ends.
  static AcceleratorModule& of_this_process();

  // Runs a validated graph to its end and returns the raw per-op timings; throws DeadlockError listing the
  // stuck ops (named by `where`) when ops never ran, SimulationError when the kernel cannot run (it failed
  // in an earlier run, or its clock is used up).
  RawRun run(const RunGraph& graph, const HardwareConfig& hw, const OpLocator& where = {});

  // The flat graph that runs are built into (make_run_graph), kept with the kernel so that its memory serves
  // every run of the process.
  RunGraph& flat_graph() { return flat_; }

  // Picoseconds of simulated time left on the kernel's clock for later runs.
  std::uint64_t clock_left_ps() const;

 private:
  AcceleratorModule();
  RawRun take_result(const OpLocator& where);

  RunGraph flat_;
  RunState state_;
  PsumBankModel psum_;
  std::vector<std::unique_ptr<EngineModule>> engines_;  // the first `bound_` serve this run's compute queues
  std::size_t bound_ = 0;
  std::unique_ptr<DmaModule> dma_;
  bool failed_ = false;
};

}  // namespace stasim
