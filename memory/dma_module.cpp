#include "memory/dma_module.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stasim {
namespace {

sc_core::sc_time after(Picoseconds ps) { return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps)); }

}  // namespace

DmaModule::DmaModule(const char* name) {
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&wake_);
  sc_core::sc_spawn(sc_bind(&DmaModule::step, this), name, &options);
}

void DmaModule::bind(RunState& state) {
  state_ = &state;
  const HardwareConfig& hw = state.hw();
  const auto& queues = state.graph().queues();
  queues_.reset(queues.size(), hw.dma.queue_depth);
  considered_.assign(queues.size(), 0);
  ring_busy_.assign(queues.size(), 0);
  ring_next_.assign(queues.size(), 0);
  ring_dispatched_.assign(queues.size(), 0);
  candidates_.clear();
  while (listeners_.size() < queues.size())
    listeners_.push_back(std::make_unique<QueueWake>(*this, static_cast<std::uint32_t>(listeners_.size())));
  for (std::uint32_t q = 0; q < queues.size(); ++q) {
    if (queues[q].engine != Engine::dma) continue;
    state.set_listener(q, listeners_[q].get());
    consider(q);  // every queue looks at its first transfer when the run starts
  }
  waiting_.clear();
  moving_.clear();
  // Resources: 0..lnc-1 each core's DMA engines, lnc the HBM share of the simulated cores, lnc+1 the link,
  // lnc+2.. each core's descriptor processing (one picosecond of it per picosecond).
  capacity_.clear();
  for (std::uint32_t c = 0; c < hw.lnc; ++c) capacity_.push_back(hw.dma.bytes_per_ns() / 1000.0);
  capacity_.push_back(hw.hbm_bytes_per_ns_available() / 1000.0);
  capacity_.push_back(hw.link.bytes_per_ns / 1000.0);
  for (std::uint32_t c = 0; c < hw.lnc; ++c) capacity_.push_back(1.0);
  last_update_ = 0;
  activations_ = 0;
}

void DmaModule::start_run() { wake_.notify(sc_core::SC_ZERO_TIME); }

Picoseconds DmaModule::now_ps() const {
  return static_cast<Picoseconds>(sc_core::sc_time_stamp().value() - state_->origin());
}

void DmaModule::consider(std::uint32_t queue) {
  if (considered_[queue]) return;
  considered_[queue] = 1;
  candidates_.push_back(queue);
}

void DmaModule::wake_queue(std::uint32_t queue, Picoseconds at_ps) {
  consider(queue);
  Picoseconds now = now_ps();
  wake_.notify(after(at_ps > now ? at_ps - now : 0));
}

Picoseconds DmaModule::share_bandwidth(Picoseconds now) {
  Picoseconds first_finish = std::numeric_limits<Picoseconds>::max();
  if (moving_.empty()) return first_finish;  // the last transfer in flight finished: nothing to share
  flows_.clear();
  for (const Transfer& t : moving_) flows_.push_back(t.flow);
  max_min_fair_share(capacity_, flows_, rates_, share_scratch_);
  for (std::size_t i = 0; i < moving_.size(); ++i) {
    Transfer& t = moving_[i];
    t.rate = rates_[i] * t.bytes_per_unit;
    // Finishing times are rounded up to the picosecond, so a transfer never ends before its bytes moved.
    t.finish_ps = now + (t.remaining_bytes > 0 ? static_cast<Picoseconds>(std::ceil(t.remaining_bytes / t.rate - 1e-6)) : 0);
    first_finish = std::min(first_finish, t.finish_ps);
  }
  return first_finish;
}

DmaModule::Transfer DmaModule::begin(OpId op, std::uint32_t queue, Picoseconds now) {
  const HardwareConfig& hw = state_->hw();
  const RunOp& o = state_->run().ops[op];
  const RunDma& d = state_->run().dma[o.aux];
  Transfer t{op, queue, queues_.dispatch(queue, op, now, o.duration_ps), d.bytes, 0.0, 0, Flow{}};
  t.ring_seq = ring_dispatched_[queue]++;
  if (d.bytes == 0) t.data_start_ps += d.descriptor_ps;
  // The transfer's use of each resource per byte: a byte of bandwidth on its core's engines, of the HBM share
  // and of the link, and its share of its descriptors' processing time on its core.
  std::uint32_t used[4];
  double per_byte[4];
  std::uint32_t n = 0;
  used[n] = o.core, per_byte[n++] = 1.0;
  if (d.uses_hbm) used[n] = hw.lnc, per_byte[n++] = 1.0;
  if (d.crosses_cores) used[n] = hw.lnc + 1, per_byte[n++] = 1.0;
  if (d.bytes > 0 && d.descriptor_ps > 0) used[n] = hw.lnc + 2 + o.core, per_byte[n++] = double(d.descriptor_ps) / double(d.bytes);
  // Shares are fair in each transfer's dominant resource (dominant resource fairness): its rate is counted in
  // units of the share it takes of the resource it uses most, so a transfer bound by its descriptors and one
  // bound by bandwidth each get an equal share of their own bottleneck rather than an equal byte rate.
  double dominant = 0;
  for (std::uint32_t i = 0; i < n; ++i) dominant = std::max(dominant, per_byte[i] / capacity_[used[i]]);
  t.bytes_per_unit = 1.0 / dominant;
  for (std::uint32_t i = 0; i < n; ++i) t.flow.use(used[i], per_byte[i] * t.bytes_per_unit);
  t.flow.cap = d.max_bytes_per_ps / t.bytes_per_unit;
  return t;
}

void DmaModule::step() {
  ++activations_;
  Picoseconds now = now_ps();
  bool changed = false;
  // The earliest end of a fixed phase and of a data phase among the transfers left in flight, kept up to date
  // by the loops below (a minimum does not depend on the order it is taken in), so no extra pass finds them.
  Picoseconds first_data_start = std::numeric_limits<Picoseconds>::max();
  Picoseconds first_finish = std::numeric_limits<Picoseconds>::max();

  // Transfers in flight move their bytes at their rates since the last activation; finished ones free their
  // queue and release their dependents. One pass: a finished transfer's place takes the last one, not yet
  // looked at, which the next round of the loop advances and checks there.
  const Picoseconds dt = now - last_update_;
  last_update_ = now;
  for (std::size_t i = 0; i < moving_.size();) {
    Transfer& t = moving_[i];
    if (dt > 0) t.remaining_bytes = std::max(0.0, t.remaining_bytes - t.rate * dt);
    if (t.finish_ps <= now) {
      ring_busy_[t.queue] = 0;
      queues_.finished(t.queue, t.op, now);
      consider(t.queue);
      state_->finish(t.op, now);
      moving_[i] = moving_.back();
      moving_.pop_back();
      changed = true;
    } else {
      first_finish = std::min(first_finish, t.finish_ps);
      ++i;
    }
  }
  // Transfers whose issue is over start moving bytes (or finish, when they have none); their queue's issue
  // stage is free for the next dispatch.
  for (std::size_t i = 0; i < waiting_.size();) {
    if (waiting_[i].data_start_ps <= now && !ring_free_for(waiting_[i])) {
      ++i;  // its ring still moves an earlier transfer's bytes: that one's finish brings it back here
    } else if (waiting_[i].data_start_ps <= now) {
      Transfer t = waiting_[i];
      waiting_[i] = waiting_.back();
      waiting_.pop_back();
      consider(t.queue);
      ++ring_next_[t.queue];
      if (t.remaining_bytes <= 0) {
        queues_.finished(t.queue, t.op, now);
        state_->finish(t.op, now);
      } else {
        ring_busy_[t.queue] = 1;
        moving_.push_back(t);
        changed = true;
      }
    } else {
      first_data_start = std::min(first_data_start, waiting_[i].data_start_ps);
      ++i;
    }
  }
  // Queues dispatch their head transfer when its dependencies are met and the queue can take it, in queue
  // order. Only queues woken or freed since the last look (or still waiting for a ready time) can start; the
  // others stay as they were.
  Picoseconds next = std::numeric_limits<Picoseconds>::max();
  if (candidates_.size() > 1) std::sort(candidates_.begin(), candidates_.end());
  still_waiting_.clear();
  for (std::uint32_t q : candidates_) {
    considered_[q] = 0;
    // A transfer without issue time leaves the issue stage free at once: the queue may dispatch again now.
    for (;;) {
      OpId op = state_->head(q);
      if (op == kNoOp || !state_->deps_done(op)) break;
      const Picoseconds queue_ready = queues_.ready_ps(q);
      if (queue_ready > now) break;  // the issue stage frees (an issue end wakes us) or a finish makes room
      if (state_->ready_ps(op) > now) {
        next = std::min(next, state_->ready_ps(op));
        still_waiting_.push_back(q);
        break;
      }
      state_->start(q, now, kNoOp, queues_.holder(q), queue_ready);
      Transfer t = begin(op, q, now);
      if (t.data_start_ps <= now && ring_free_for(t)) {
        ring_busy_[q] = 1;
        ++ring_next_[q];
        moving_.push_back(t);
        changed = true;
      } else {
        waiting_.push_back(t);
        if (t.data_start_ps > now) first_data_start = std::min(first_data_start, t.data_start_ps);
        break;
      }
    }
  }
  candidates_.swap(still_waiting_);
  for (std::uint32_t q : candidates_) considered_[q] = 1;
  // A change of the transfers moving bytes gives every one of them a new rate and finishing time; otherwise
  // they keep theirs, whose earliest the first loop found.
  if (changed) first_finish = share_bandwidth(now);

  next = std::min(next, std::min(first_data_start, first_finish));
  if (next == std::numeric_limits<Picoseconds>::max()) {
    sc_core::next_trigger(wake_);
  } else {
    sc_core::next_trigger(after(next - now), wake_);
  }
}

}  // namespace stasim
