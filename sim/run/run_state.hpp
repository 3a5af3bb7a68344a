// RunState: the shared, kernel-free bookkeeping of one simulation. Engine and DMA modules call start()/finish();
// finish() (at the time an op's result is written) propagates completion to dependents (adding the semaphore
// latency across engines or cores, or a DMA's completion latency) and wakes
// the queue whose head became ready. Modules stay thin shells; the readiness rules live here. One RunState
// serves every run of a process's kernel: reset() starts the next run and keeps the memory of the last one.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"
#include "sim/run/activity_meter.hpp"
#include "sim/run/run_graph.hpp"

namespace stasim {

// A queue's module; woken when its head op may be able to start at time `at_ps` (or later).
class QueueListener {
 public:
  virtual ~QueueListener() = default;
  virtual void wake(Picoseconds at_ps) = 0;
};

// PSUM banks as a blocking resource. admit() says whether an op may accumulate at `now_ps` (taking its bank if
// free); if not, the op's queue is woken when the bank is released. finished() is told when a release op's
// result is written (`at_ps`, now or later: an engine tells it when it dispatches the op); the bank is free
// from then on.
class PsumArbiter {
 public:
  virtual ~PsumArbiter() = default;
  // kNoOp when admitted; otherwise the release op the caller now waits for.
  virtual OpId admit(OpId op, std::uint32_t queue, Picoseconds now_ps) = 0;
  virtual void finished(OpId op, Picoseconds at_ps) = 0;
};

class RunState {
 public:
  // Starts a run of `run` on `hw`: every op pending, no listener; `origin` is the kernel's clock (in its own
  // picoseconds) at which this run's time 0 lies.
  void reset(const RunGraph& run, const HardwareConfig& hw, std::uint64_t origin);

  const ScheduleGraph& graph() const { return *graph_; }
  const RunGraph& run() const { return *run_; }
  const HardwareConfig& hw() const { return *hw_; }
  std::uint64_t origin() const { return origin_; }
  void set_listener(std::uint32_t queue, QueueListener* listener) { listeners_[queue] = listener; }
  void set_psum(PsumArbiter* psum) { psum_ = psum; }
  PsumArbiter* psum() { return psum_; }

  // The op at the head of `queue` (not started yet), or kNoOp when the queue is drained.
  OpId head(std::uint32_t queue) const {
    const auto& ops = graph_->queues()[queue].ops;
    return head_[queue] < ops.size() ? ops[head_[queue]] : kNoOp;
  }
  bool deps_done(OpId op) const { return remaining_[op] == 0; }
  // When the op's dependencies allow it to start (semaphore latency included); -1 while none has finished.
  Picoseconds ready_ps(OpId op) const { return timing_[op].start_ps; }
  // The op's cost, computed before the run (RunGraph).
  Picoseconds duration_ps(OpId op) const { return run_->ops[op].duration_ps; }

  // Records the start of the head of `queue` at `now_ps` and what bound it: `psum_wait` is the release op it
  // waited for, if any; `queue_op` the op of its own queue that held the queue (engine) up until
  // `queue_ready_ps` (its interval end; for a DMA queue the dispatch before, or the finish that freed a place),
  // kNoOp when none did. Returns the op.
  OpId start(std::uint32_t queue, Picoseconds now_ps, OpId psum_wait, OpId queue_op, Picoseconds queue_ready_ps);
  // The op's result is written at `end_ps` (now, or later for an engine op told at its dispatch: its end is
  // known then, and its dependents' readiness lies after it anyway): propagates to the dependents.
  void finish(OpId op, Picoseconds end_ps);
  QueueListener* listener(std::uint32_t queue) const { return listeners_[queue]; }

  std::size_t finished_count() const { return finished_; }
  const std::vector<OpTiming>& timings() const { return timing_; }
  // Hands the timings to the caller (the next reset() allocates them anew: they leave with the result).
  std::vector<OpTiming> take_timings() { return std::move(timing_); }
  // Each engine's active time so far (ActivityMeter::active_ps).
  const ActivityMeter& activity() const { return activity_; }

 private:
  const ScheduleGraph* graph_ = nullptr;
  const RunGraph* run_ = nullptr;
  const HardwareConfig* hw_ = nullptr;
  std::uint64_t origin_ = 0;
  Picoseconds semaphore_ps_ = 0;
  Picoseconds completion_ps_ = 0;
  // Until an op starts, its record holds its readiness: start_ps the time its latest finished dependency
  // allows (-1 before any), bound_op that dependency (kNoOp before any); start() then writes the real values.
  // This saves two per-op arrays (12 bytes per op) that would only be read before the start.
  std::vector<OpTiming> timing_;
  std::vector<std::uint32_t> remaining_;   // per op: dependencies not finished yet
  std::vector<std::uint32_t> head_;
  std::vector<QueueListener*> listeners_;
  PsumArbiter* psum_ = nullptr;
  std::size_t finished_ = 0;
  ActivityMeter activity_;
};

}  // namespace stasim
