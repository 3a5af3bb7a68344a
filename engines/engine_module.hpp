// EngineModule: one compute engine (tensor, vector, scalar or GpSimd) of one core as a SystemC process. It
// executes its queue in program order: the head op starts when its dependencies are done (RunState adds the
// semaphore latency), the previous op has finished, and its PSUM bank is granted; it then occupies the engine
// for its cost (engines/cost_model.hpp). The process sleeps until the op ends or something wakes it.
#pragma once

#include <systemc>

#include "sim/kernel/run_state.hpp"

namespace stasim {

class EngineModule : public sc_core::sc_module, public QueueListener {
 public:
  SC_HAS_PROCESS(EngineModule);
  EngineModule(sc_core::sc_module_name name, RunState& state, std::uint32_t queue);
  void wake(Picoseconds at_ps) override;
  std::uint64_t activations() const { return activations_; }

 private:
  void step();

  RunState& state_;
  std::uint32_t queue_;
  sc_core::sc_event wake_;
  OpId running_ = kNoOp;
  Picoseconds running_end_ps_ = 0;
  OpId psum_wait_ = kNoOp;
  std::uint64_t activations_ = 0;
};

}  // namespace stasim
