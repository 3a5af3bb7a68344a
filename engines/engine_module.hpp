// EngineModule: one compute engine (tensor, vector, scalar or GpSimd) of one core as a SystemC process. It
// executes its queue in program order: the head op starts when its dependencies are done (RunState adds the
// semaphore or DMA-completion latency), the engine can take it, and its PSUM bank is granted. It then holds the
// engine for its interval (computed before the run from engines/cost_model.hpp; a tensor engine's less the part
// of a LoadStationary hidden under the instruction before it, then divided by its dI/dt throttle rate at the
// start, engines/tensor_throttle.hpp; a ScalarE activation's plus an activation-table load when its function
// needs another table), and its result is written its pipeline latency after that (op_latency_ps): the next
// independent instruction starts at the interval's end, a dependent one waits for the result. TensorE runs
// matmuls on disjoint PE tiles at once (nc_matmul tile_position / tile_size): an instruction waits only for
// the tiles it uses. The process sleeps until an interval or a latency ends or something wakes it. A
// process's kernel keeps its engine processes for every run: bind() gives one the queue it runs next.
#pragma once

#include <systemc>

#include <cstdint>
#include <vector>

#include "engines/tensor_throttle.hpp"
#include "sim/run/run_state.hpp"

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
  // The PE tiles (bit per cell of the tile grid) an op uses; all of them for every other engine.
  std::uint32_t cells_of(OpId op) const;
  Picoseconds cells_free_ps(std::uint32_t cells) const;

  RunState* state_ = nullptr;
  std::uint32_t queue_ = 0;
  sc_core::sc_event wake_;
  // When each cell of the engine is free (one cell except on a tiled TensorE), and the op that held it.
  std::vector<Picoseconds> cell_free_ps_;
  std::vector<OpId> cell_holder_;
  std::uint32_t all_cells_ = 1;
  bool uniform_cells_ = true;     // every cell holds the same time and op (kept in cell 0 only)
  bool tiled_ = false;            // some matmul of the queue names a PE tile
  std::uint32_t tile_grid_rows_ = 1, tile_grid_columns_ = 1;
  // The last op started, when it started and when its interval ends (-1: none yet): a LoadStationary can hide
  // under it (tensor.background_load_stationary).
  OpId last_op_ = kNoOp;
  Picoseconds last_start_ps_ = -1;
  Picoseconds last_end_ps_ = 0;
  OpId psum_wait_ = kNoOp;
  std::uint8_t table_ = 0;  // ScalarE: the activation table loaded (0: none yet)
  std::uint64_t activations_ = 0;
  bool tensor_ = false;
  bool scalar_ = false;
  TensorThrottle throttle_;
};

}  // namespace stasim
