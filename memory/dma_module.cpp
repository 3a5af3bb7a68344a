#include "memory/dma_module.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "memory/dma_cost.hpp"

namespace stasim {
namespace {

Picoseconds now_ps() { return static_cast<Picoseconds>(sc_core::sc_time_stamp().value()); }
sc_core::sc_time after(Picoseconds ps) { return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps)); }

}  // namespace

DmaModule::DmaModule(sc_core::sc_module_name name, RunState& state) : sc_core::sc_module(name), state_(state) {
  const HardwareConfig& hw = state.hw();
  const auto& queues = state.graph().queues();
  busy_.assign(queues.size(), 0);
  for (std::uint32_t q = 0; q < queues.size(); ++q) {
    if (queues[q].engine != Engine::dma) continue;
    queues_.push_back(q);
    listeners_.push_back(std::make_unique<QueueWake>(*this, q));
    state.set_listener(q, listeners_.back().get());
  }
  // Resources: 0..lnc-1 each core's DMA engines, lnc the HBM share of the simulated cores, lnc+1 the link.
  for (std::uint32_t c = 0; c < hw.lnc; ++c) capacity_.push_back(hw.dma.bytes_per_ns() / 1000.0);
  capacity_.push_back(hw.hbm_bytes_per_ns_available() / 1000.0);
  capacity_.push_back(hw.link.bytes_per_ns / 1000.0);
  SC_METHOD(step);
  sensitive << wake_;
}

void DmaModule::wake_at(Picoseconds at_ps) {
  Picoseconds now = now_ps();
  wake_.notify(after(at_ps > now ? at_ps - now : 0));
}

void DmaModule::advance(Picoseconds now) {
  Picoseconds dt = now - last_update_;
  if (dt > 0)
    for (Transfer& t : moving_) t.remaining_bytes = std::max(0.0, t.remaining_bytes - t.rate * dt);
  last_update_ = now;
}

void DmaModule::share_bandwidth(Picoseconds now) {
  std::vector<Flow> flows;
  flows.reserve(moving_.size());
  for (const Transfer& t : moving_) {
    Flow f = t.flow;
    // Bytes cannot outrun the descriptors: until they are all processed, at most the rest over the time left.
    f.cap = now < t.descriptors_end_ps ? std::min(t.max_rate, t.remaining_bytes / double(t.descriptors_end_ps - now))
                                       : t.max_rate;
    flows.push_back(f);
  }
  std::vector<double> rates = max_min_fair_share(capacity_, flows);
  for (std::size_t i = 0; i < moving_.size(); ++i) {
    Transfer& t = moving_[i];
    t.rate = rates[i];
    // Finishing times are rounded up to the picosecond, so a transfer never ends before its bytes moved.
    t.finish_ps = now + (t.remaining_bytes > 0 ? static_cast<Picoseconds>(std::ceil(t.remaining_bytes / t.rate - 1e-6)) : 0);
  }
}

DmaModule::Transfer DmaModule::begin(OpId op, std::uint32_t queue, Picoseconds now) {
  const HardwareConfig& hw = state_.hw();
  const Op& o = state_.graph().op(op);
  Transfer t{op, queue, 0, 0.0, 0.0, 0, Flow{}};
  if (o.duration_ps >= 0) {  // an explicit duration occupies the queue and no bandwidth
    t.data_start_ps = now + o.duration_ps;
  } else {
    const cost::DmaPlan plan = cost::plan_dma(o, hw);
    t.data_start_ps = now + plan.issue_ps;
    t.descriptors_end_ps = t.data_start_ps + plan.descriptor_ps;
    t.max_rate = plan.max_bytes_per_ps;
    t.remaining_bytes = static_cast<double>(o.bytes);
  }
  t.flow.use(o.core);
  if (cost::touches_hbm(o)) t.flow.use(hw.lnc);
  if (cost::crosses_cores(o)) t.flow.use(hw.lnc + 1);
  return t;
}

void DmaModule::step() {
  ++activations_;
  Picoseconds now = now_ps();
  advance(now);
  bool changed = false;

  // Finished transfers free their queue and release their dependents.
  for (std::size_t i = 0; i < moving_.size();) {
    if (moving_[i].finish_ps <= now) {
      busy_[moving_[i].queue] = 0;
      state_.finish(moving_[i].op, now);
      moving_[i] = moving_.back();
      moving_.pop_back();
      changed = true;
    } else {
      ++i;
    }
  }
  // Transfers whose fixed phase is over start moving bytes (or finish, when they have none).
  for (std::size_t i = 0; i < waiting_.size();) {
    if (waiting_[i].data_start_ps <= now) {
      Transfer t = waiting_[i];
      waiting_[i] = waiting_.back();
      waiting_.pop_back();
      if (t.remaining_bytes <= 0) {
        busy_[t.queue] = 0;
        state_.finish(t.op, now);
      } else {
        moving_.push_back(t);
        changed = true;
      }
    } else {
      ++i;
    }
  }
  // Idle queues start their head transfer when its dependencies are met.
  Picoseconds next = std::numeric_limits<Picoseconds>::max();
  for (std::uint32_t q : queues_) {
    if (busy_[q]) continue;
    OpId op = state_.head(q);
    if (op == kNoOp || !state_.deps_done(op)) continue;
    if (state_.ready_ps(op) > now) {
      next = std::min(next, state_.ready_ps(op));
      continue;
    }
    state_.start(q, now, kNoOp);
    Transfer t = begin(op, q, now);
    busy_[q] = 1;
    if (t.data_start_ps <= now && t.remaining_bytes > 0) {
      moving_.push_back(t);
      changed = true;
    } else {
      waiting_.push_back(t);
    }
  }
  if (changed) share_bandwidth(now);

  for (const Transfer& t : waiting_) next = std::min(next, t.data_start_ps);
  for (const Transfer& t : moving_) next = std::min(next, t.finish_ps);
  if (next == std::numeric_limits<Picoseconds>::max()) {
    next_trigger(wake_);
  } else {
    next_trigger(after(next - now), wake_);
  }
}

}  // namespace stasim
