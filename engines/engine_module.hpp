// EngineModule: one compute engine (tensor, vector, scalar or GpSimd) of one core as a SystemC process. It
// executes its queue in program order: the head op starts when its dependencies are done (RunState adds the
// semaphore latency), the previous op has finished, and its PSUM bank is granted; it then occupies the engine
// for its cost (computed before the run from engines/cost_model.hpp; a tensor engine's less the part of a
// LoadStationary hidden under the instruction before it, then divided by its dI/dt throttle rate at the start,
// engines/tensor_throttle.hpp). The process sleeps until the op ends or
// something wakes it. A process's kernel keeps its engine processes for every run: bind() gives one the queue
// it runs next.
#pragma once

#include <systemc>

#include "engines/tensor_throttle.hpp"
#include "sim/kernel/run_state.hpp"

namespace stasim {

class EngineModule : public QueueListener {
 public:
  // Spawns the engine's process, asleep until a run binds and starts it.
  explicit EngineModule(const char* name);
  void bind(RunState& state, std::uint32_t queue);
  // Runs the process once at the start of the run (as SystemC's initialization would).
  void start_run();
  void wake(Picoseconds at_ps) override;
  std::uint64_t activations() const { return activations_; }

 private:
  void step();
  Picoseconds now_ps() const;
  Picoseconds hidden_load_ps(OpId op, Picoseconds now) const;

  RunState* state_ = nullptr;
  std::uint32_t queue_ = 0;
  sc_core::sc_event wake_;
  OpId running_ = kNoOp;
  Picoseconds running_end_ps_ = 0;
  // When the last op this engine ran started (-1: none yet; it ends at running_end_ps_): a LoadStationary can
  // hide under it (tensor.background_load_stationary).
  Picoseconds last_start_ps_ = -1;
  OpId psum_wait_ = kNoOp;
  std::uint64_t activations_ = 0;
  bool tensor_ = false;
  TensorThrottle throttle_;
};

}  // namespace stasim
