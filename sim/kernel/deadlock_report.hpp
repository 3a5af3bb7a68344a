// DeadlockReport: what a simulation that ran out of events with ops not executed was waiting for. The kernel
// hands over a snapshot of its run state (which ops finished, each queue's head, which group holds each PSUM
// bank); the report names every stuck op with what it waits for and follows the waits to the cycle that
// closes them. Plain C++: unit-tested on hand-made snapshots without the kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/graph_validation.hpp"
#include "sim/core/schedule_graph.hpp"

namespace stasim {

// The run state when the event queue emptied.
struct StuckSnapshot {
  std::vector<char> finished;              // per op
  std::vector<OpId> queue_head;            // per queue: its first op not started (kNoOp when drained)
  std::uint32_t psum_banks = 0;            // banks per core
  std::vector<std::uint32_t> psum_holder;  // per core * psum_banks + bank: the group holding it, or kNoGroup
  static constexpr std::uint32_t kNoGroup = 0xFFFFFFFFu;
};

// What one stuck op waits for first: an unfinished dependency, the op ahead of it in its queue, or the release
// of the PSUM bank another group holds. `on` is that op (kNoOp when nothing explains the wait).
enum class WaitKind : std::uint8_t { dependency, queue, psum, unexplained };

struct StuckOp {
  OpId op = kNoOp;
  WaitKind kind = WaitKind::unexplained;
  OpId on = kNoOp;
  std::uint32_t unfinished_deps = 0;       // how many of its dependencies never finished
  std::uint32_t psum_group = StuckSnapshot::kNoGroup;  // psum: the group holding the bank
};

class DeadlockReport {
 public:
  DeadlockReport(const ScheduleGraph& graph, const StuckSnapshot& snapshot);

  // Stuck ops, queue heads first (in queue order), then the others by id.
  const std::vector<StuckOp>& stuck() const { return stuck_; }
  // Ops of the wait cycle, each waiting for the next and the last for the first; empty when none closes.
  const std::vector<OpId>& cycle() const { return cycle_; }

  // The message: a count, the first `max_listed` stuck ops one per line, "... and N more", and the cycle.
  std::string text(const OpLocator& where = {}, std::size_t max_listed = 20) const;

 private:
  std::string wait_text(const StuckOp& s, const OpLocator& name) const;

  const ScheduleGraph& graph_;
  std::vector<StuckOp> stuck_;
  std::vector<OpId> cycle_;
};

}  // namespace stasim
