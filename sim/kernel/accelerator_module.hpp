// AcceleratorModule: the SystemC top. It is the only place that knows engines and memory together: it builds
// one EngineModule per compute queue, the DmaModule for all DMA queues and the PSUM bank model, all over one
// RunState, for the `lnc` physical cores of one simulated (logical) core.
#pragma once

#include <systemc>

#include <memory>
#include <vector>

#include "engines/engine_module.hpp"
#include "memory/dma_module.hpp"
#include "memory/psum_bank_model.hpp"
#include "sim/core/graph_validation.hpp"
#include "sim/kernel/run_state.hpp"

namespace stasim {

class AcceleratorModule : public sc_core::sc_module {
 public:
  AcceleratorModule(sc_core::sc_module_name name, const ScheduleGraph& graph, const HardwareConfig& hw);

  // After sc_start(): the raw per-op timings; throws DeadlockError listing the stuck ops (named by `where`) when
  // ops never ran.
  RawRun take_result(const OpLocator& where = {});

 private:
  RunState state_;
  PsumBankModel psum_;
  std::vector<std::unique_ptr<EngineModule>> engines_;
  std::unique_ptr<DmaModule> dma_;
};

}  // namespace stasim
