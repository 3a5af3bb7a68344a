#include "engines/engine_module.hpp"

#include <algorithm>
#include <limits>

#include "engines/cost_model.hpp"
#include "sim/core/instruction_set.hpp"
#include "sim/core/units.hpp"

namespace stasim {
namespace {

constexpr Picoseconds kNever = std::numeric_limits<Picoseconds>::max();

sc_core::sc_time after(Picoseconds ps) { return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps)); }

// A matmul costed by its formula (engines/cost_model.hpp), not by a schedule's own `cycles` or `duration_ns`.
bool formula_matmul(const Op& o) { return o.kind == OpKind::matmul && o.cycles < 0 && o.duration_ps < 0; }

}  // namespace

EngineModule::EngineModule(const char* name) {
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&wake_);
  sc_core::sc_spawn(sc_bind(&EngineModule::step, this), name, &options);
}

void EngineModule::bind(RunState& state, std::uint32_t queue) {
  state_ = &state;
  queue_ = queue;
  last_op_ = kNoOp;
  last_start_ps_ = -1;
  last_end_ps_ = 0;
  psum_wait_ = kNoOp;
  table_ = 0;
  activations_ = 0;
  const Engine engine = state.graph().queues()[queue].engine;
  tensor_ = engine == Engine::tensor;
  scalar_ = engine == Engine::scalar;
  const TensorEngineConfig& t = state.hw().tensor;
  tile_grid_rows_ = tensor_ ? std::max<std::uint32_t>(1, t.rows / std::max<std::uint32_t>(1, t.min_tile_rows)) : 1;
  tile_grid_columns_ = tensor_ ? std::max<std::uint32_t>(1, t.columns / std::max<std::uint32_t>(1, t.min_tile_columns)) : 1;
  // At most 32 cells: a finer grid than the ISA's 4 x 4 tiles is folded into whole-array matmuls (cells_of).
  if (tile_grid_rows_ * tile_grid_columns_ > 32) tile_grid_rows_ = tile_grid_columns_ = 1;
  cell_free_ps_.assign(std::size_t{tile_grid_rows_} * tile_grid_columns_, 0);
  cell_holder_.assign(cell_free_ps_.size(), kNoOp);
  all_cells_ = cell_free_ps_.size() >= 32 ? 0xFFFFFFFFu : (1u << cell_free_ps_.size()) - 1;
  uniform_cells_ = true;
  // Whether any matmul of this queue names a PE tile: if none does, every op takes the whole array.
  tiled_ = false;
  if (tensor_ && cell_free_ps_.size() > 1)
    for (OpId v : state.graph().queues()[queue].ops) {
      const Op& o = state.graph().op(v);
      if (o.kind == OpKind::matmul && (o.tile_rows || o.tile_columns)) {
        tiled_ = true;
        break;
      }
    }
  throttle_.reset(state.hw().tensor);
  state.set_listener(queue, this);
}

void EngineModule::start_run() { wake_.notify(sc_core::SC_ZERO_TIME); }

Picoseconds EngineModule::now_ps() const {
  return static_cast<Picoseconds>(sc_core::sc_time_stamp().value() - state_->origin());
}

void EngineModule::wake(Picoseconds at_ps) {
  Picoseconds now = now_ps();
  wake_.notify(after(at_ps > now ? at_ps - now : 0));
}

std::uint32_t EngineModule::cells_of(OpId op) const {
  const std::uint32_t all = all_cells_;
  if (!tiled_) return all;
  const Op& o = state_->graph().op(op);
  if (o.kind != OpKind::matmul || (o.tile_rows == 0 && o.tile_columns == 0)) return all;
  const TensorEngineConfig& t = state_->hw().tensor;
  const std::uint32_t rows = o.tile_rows ? o.tile_rows : t.rows, cols = o.tile_columns ? o.tile_columns : t.columns;
  const std::uint32_t r0 = o.tile_row / t.min_tile_rows, r1 = (o.tile_row + rows) / t.min_tile_rows;
  const std::uint32_t c0 = o.tile_column / t.min_tile_columns, c1 = (o.tile_column + cols) / t.min_tile_columns;
  std::uint32_t cells = 0;
  for (std::uint32_t r = r0; r < r1 && r < tile_grid_rows_; ++r)
    for (std::uint32_t c = c0; c < c1 && c < tile_grid_columns_; ++c) cells |= 1u << (r * tile_grid_columns_ + c);
  return cells ? cells : all;
}

Picoseconds EngineModule::cells_free_ps(std::uint32_t cells) const {
  Picoseconds free = 0;
  for (std::size_t i = 0; i < cell_free_ps_.size(); ++i)
    if (cells >> i & 1u) free = std::max(free, cell_free_ps_[i]);
  return free;
}

// LoadStationary runs in the background of the instruction before it (docs/hardware-model.md): when the engine
// goes straight from that instruction to a matmul that changes its stationary operand, the load overlaps the
// instruction from the moment the operand is ready (its dependencies done, the instruction started), and only
// what does not fit is paid. After a gap (an idle engine, a wait for a PSUM bank) the whole load is paid.
Picoseconds EngineModule::hidden_load_ps(OpId op, Picoseconds now) const {
  const TensorEngineConfig& t = state_->hw().tensor;
  if (!t.background_load_stationary || last_start_ps_ < 0 || now != last_end_ps_) return 0;
  const Op& o = state_->graph().op(op);
  if (!formula_matmul(o) || !o.new_stationary) return 0;
  Picoseconds from = std::max(state_->ready_ps(op), last_start_ps_);
  if (from >= last_end_ps_) return 0;
  return std::min(last_end_ps_ - from, ps_from_cycles(t.load_stationary_cycles, t.clock_ghz));
}

void EngineModule::step() {
  ++activations_;
  const Picoseconds now = now_ps();
  const RunGraph& run = state_->run();
  // Start the head of the queue, and the next when it can start at once too (disjoint PE tiles).
  Picoseconds next = kNever;
  for (;;) {
    OpId op = state_->head(queue_);
    if (op == kNoOp || !state_->deps_done(op)) break;  // a dependency's finish() wakes us
    if (state_->ready_ps(op) > now) {                  // semaphore latency still in flight
      next = std::min(next, state_->ready_ps(op));
      break;
    }
    const std::uint32_t cells = cells_of(op);
    // Until an op uses part of the array, every cell holds the same time and op: cell 0 stands for all.
    if (uniform_cells_ && cells != all_cells_) {
      std::fill(cell_free_ps_.begin(), cell_free_ps_.end(), cell_free_ps_[0]);
      std::fill(cell_holder_.begin(), cell_holder_.end(), cell_holder_[0]);
      uniform_cells_ = false;
    }
    const Picoseconds free = uniform_cells_ ? cell_free_ps_[0] : cells_free_ps(cells);
    if (free > now) {  // the engine (or the PE tiles it needs) is still busy
      next = std::min(next, free);
      break;
    }
    // Only tensor-engine ops accumulate into PSUM (validation rejects any other), so only they need a bank.
    if (PsumArbiter* psum = tensor_ ? state_->psum() : nullptr) {
      OpId release = psum->admit(op, queue_, now);
      if (release != kNoOp) {  // the bank's release wakes us
        psum_wait_ = release;
        break;
      }
    }
    Picoseconds duration = state_->duration_ps(op);
    if (tensor_) duration -= hidden_load_ps(op, now);
    if (tensor_ && throttle_.enabled()) {
      const double rate = throttle_.rate_at(now);
      const Op& o = state_->graph().op(op);
      const TensorEngineConfig& t = state_->hw().tensor;
      if (!t.throttle_stretches_floor && formula_matmul(o))
        duration = round_ps(static_cast<double>(duration) * cost::matmul_throttle_stretch(t, o.m, o.n, rate));
      else
        duration = round_ps(static_cast<double>(duration) / rate);
      throttle_.busy(now, now + duration);
    }
    if (scalar_) {
      const std::uint8_t table = run.activation_table(op);
      if (table != 0 && table != table_) {
        duration += cost::table_load_ps(state_->hw());
        table_ = table;
      }
    }
    // What held the engine up: the op that last used one of its cells.
    OpId holder = kNoOp;
    Picoseconds held_until = -1;
    if (uniform_cells_) {
      if (cell_holder_[0] != kNoOp) holder = cell_holder_[0], held_until = cell_free_ps_[0];
    } else {
      for (std::size_t i = 0; i < cell_free_ps_.size(); ++i)
        if ((cells >> i & 1u) && cell_holder_[i] != kNoOp && cell_free_ps_[i] > held_until) {
          held_until = cell_free_ps_[i];
          holder = cell_holder_[i];
        }
    }
    state_->start(queue_, now, psum_wait_, holder, held_until);
    psum_wait_ = kNoOp;
    if (cells == all_cells_) {
      uniform_cells_ = true;  // the whole array: every cell now holds this op
      cell_free_ps_[0] = now + duration;
      cell_holder_[0] = op;
    } else {
      for (std::size_t i = 0; i < cell_free_ps_.size(); ++i)
        if (cells >> i & 1u) {
          cell_free_ps_[i] = now + duration;
          cell_holder_[i] = op;
        }
    }
    last_op_ = op;
    last_start_ps_ = now;
    last_end_ps_ = now + duration;
    // Its result is written when its latency after the interval is over: that time is known now, so the op
    // finishes at once with it (its dependents' readiness, the PSUM release and the activity all lie there),
    // and the engine wakes again only for its own next op. The engine itself is free at the interval's end
    // (the cells above), which wakes it only when its next op is waiting for them.
    state_->finish(op, now + duration + (run.has_latency(op) ? run.queue_latency_ps[queue_] : 0));
  }
  if (next == kNever) sc_core::next_trigger(wake_);
  else sc_core::next_trigger(after(next - now), wake_);
}

}  // namespace stasim
