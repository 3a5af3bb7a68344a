#include "engines/engine_module.hpp"

#include <algorithm>

#include "engines/cost_model.hpp"
#include "sim/core/units.hpp"

namespace stasim {
namespace {

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
  running_ = kNoOp;
  running_end_ps_ = 0;
  last_start_ps_ = -1;
  psum_wait_ = kNoOp;
  activations_ = 0;
  tensor_ = state.graph().queues()[queue].engine == Engine::tensor;
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

// LoadStationary runs in the background of the instruction before it (docs/hardware-model.md): when the engine
// goes straight from that instruction to a matmul that changes its stationary operand, the load overlaps the
// instruction from the moment the operand is ready (its dependencies done, the instruction started), and only
// what does not fit is paid. After a gap (an idle engine, a wait for a PSUM bank) the whole load is paid.
Picoseconds EngineModule::hidden_load_ps(OpId op, Picoseconds now) const {
  const TensorEngineConfig& t = state_->hw().tensor;
  if (!t.background_load_stationary || last_start_ps_ < 0 || now != running_end_ps_) return 0;
  const Op& o = state_->graph().op(op);
  if (!formula_matmul(o) || !o.new_stationary) return 0;
  Picoseconds from = std::max(state_->ready_ps(op), last_start_ps_);
  if (from >= running_end_ps_) return 0;
  return std::min(running_end_ps_ - from, ps_from_cycles(t.load_stationary_cycles, t.clock_ghz));
}

void EngineModule::step() {
  ++activations_;
  Picoseconds now = now_ps();
  if (running_ != kNoOp) {
    if (now < running_end_ps_) {  // woken early: keep waiting for the op to end
      sc_core::next_trigger(after(running_end_ps_ - now));
      return;
    }
    OpId done = running_;
    running_ = kNoOp;
    state_->finish(done, now);
  }
  OpId op = state_->head(queue_);
  if (op == kNoOp || !state_->deps_done(op)) return;  // a dependency's finish() wakes us
  if (state_->ready_ps(op) > now) {                    // semaphore latency still in flight
    sc_core::next_trigger(after(state_->ready_ps(op) - now));
    return;
  }
  // Only tensor-engine ops accumulate into PSUM (validation rejects any other), so only they need a bank.
  if (PsumArbiter* psum = tensor_ ? state_->psum() : nullptr) {
    OpId release = psum->admit(op, queue_);
    if (release != kNoOp) {  // the bank's release wakes us
      psum_wait_ = release;
      return;
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
  state_->start(queue_, now, psum_wait_);
  psum_wait_ = kNoOp;
  running_ = op;
  running_end_ps_ = now + duration;
  last_start_ps_ = now;
  sc_core::next_trigger(after(duration));
}

}  // namespace stasim
