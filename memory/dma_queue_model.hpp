// DmaQueueModel: when a DMA queue may dispatch its next transfer (docs/hardware-model.md DMA). Plain
// arithmetic, no kernel: the DMA module asks it and times the bytes.
//
// - A queue dispatches one transfer at a time: each spends its issue time (core.dma.issue_ns: descriptor setup,
//   synchronisation, semaphore-to-start; plus the hardware-DGE instruction and link crossings where they apply)
//   before its bytes move, and the queue's next transfer starts its issue when that one's is over: the issue of
//   the next overlaps the bytes of the ones before. At most `queue_depth` transfers of a queue are in flight.
// - A queue is a descriptor ring: its DMA engines work through it in order, so a transfer's bytes move only
//   after the queue's earlier transfers' bytes (the DMA module keeps that order); the core's descriptor
//   processing is shared by its rings like bandwidth (memory/bandwidth_sharing.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

class DmaQueueModel {
 public:
  // `queues` DMA queues (graph queue indices), `depth` transfers in flight per queue.
  void reset(std::size_t queues, std::uint32_t depth);

  // When queue `q` may dispatch its next transfer (its issue stage free and a place in flight), and the op that
  // held it up (kNoOp: nothing did). A full queue waits for a finish: max() is returned until one comes.
  Picoseconds ready_ps(std::uint32_t q) const;
  OpId holder(std::uint32_t q) const;

  // Dispatches `op` on queue `q` at `now_ps` (>= ready_ps(q)); returns when its issue is over (its bytes may
  // move from then on).
  Picoseconds dispatch(std::uint32_t q, OpId op, Picoseconds now_ps, Picoseconds issue_ps);
  // A transfer of queue `q` finished at `now_ps`: its place in flight is free.
  void finished(std::uint32_t q, OpId op, Picoseconds now_ps);

 private:
  struct QueueState {
    Picoseconds issue_free_ps = 0;   // the last dispatch's issue ends
    OpId last_dispatched = kNoOp;
    std::uint32_t in_flight = 0;
    OpId last_finished = kNoOp;      // freed a place while the queue was full
    Picoseconds last_finished_ps = 0;
  };
  std::vector<QueueState> queues_;
  std::uint32_t depth_ = 1;
};

}  // namespace stasim
