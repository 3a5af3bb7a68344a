#include "engines/engine_module.hpp"

#include "engines/cost_model.hpp"

namespace stasim {
namespace {

Picoseconds now_ps() { return static_cast<Picoseconds>(sc_core::sc_time_stamp().value()); }
sc_core::sc_time after(Picoseconds ps) { return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps)); }

}  // namespace

EngineModule::EngineModule(sc_core::sc_module_name name, RunState& state, std::uint32_t queue)
    : sc_core::sc_module(name), state_(state), queue_(queue) {
  state.set_listener(queue, this);
  SC_METHOD(step);
  sensitive << wake_;
}

void EngineModule::wake(Picoseconds at_ps) {
  Picoseconds now = now_ps();
  wake_.notify(after(at_ps > now ? at_ps - now : 0));
}

void EngineModule::step() {
  ++activations_;
  Picoseconds now = now_ps();
  if (running_ != kNoOp) {
    if (now < running_end_ps_) {  // woken early: keep waiting for the op to end
      next_trigger(after(running_end_ps_ - now));
      return;
    }
    OpId done = running_;
    running_ = kNoOp;
    state_.finish(done, now);
  }
  OpId op = state_.head(queue_);
  if (op == kNoOp || !state_.deps_done(op)) return;  // a dependency's finish() wakes us
  if (state_.ready_ps(op) > now) {                    // semaphore latency still in flight
    next_trigger(after(state_.ready_ps(op) - now));
    return;
  }
  if (PsumArbiter* psum = state_.psum()) {
    OpId release = psum->admit(op, queue_);
    if (release != kNoOp) {  // the bank's release wakes us
      psum_wait_ = release;
      return;
    }
  }
  Picoseconds duration = cost::op_duration(state_.graph().op(op), state_.hw(), state_.depends_on_predecessor(op));
  state_.start(queue_, now, psum_wait_);
  psum_wait_ = kNoOp;
  running_ = op;
  running_end_ps_ = now + duration;
  next_trigger(after(duration));
}

}  // namespace stasim
