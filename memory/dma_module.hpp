// DmaModule: every DMA queue of every simulated core, as one SystemC process, because transfers in flight
// share bandwidth and so cannot be timed one by one. A queue dispatches its transfers in program order, one
// issue at a time, with up to core.dma.queue_depth of them in flight (memory/dma_queue_model.hpp); a dispatched
// transfer waits out its issue (memory/dma_cost.hpp) and the bytes of the queue's earlier transfers (a queue is
// a descriptor ring its DMA engines work through in order), then moves its bytes at a max-min fair rate over its
// core's DMA engines, the HBM share of the simulated cores, (across cores) the link and its core's descriptor
// processing (each byte takes its transfer's descriptor time per byte), shared fairly in each transfer's dominant
// resource, never faster than its own engines; rates are
// recomputed at every start and finish. The process sleeps until the next dispatch, issue end or finish. Only
// the queues that were woken or freed since the last activation are looked at, and its working memory lasts
// across runs.
#pragma once

#include <systemc>

#include <memory>
#include <vector>

#include "memory/bandwidth_sharing.hpp"
#include "memory/dma_queue_model.hpp"
#include "sim/run/run_state.hpp"

namespace stasim {

class DmaModule {
 public:
  // Spawns the process, asleep until a run binds and starts it.
  explicit DmaModule(const char* name);
  // Takes every DMA queue of the run's graph.
  void bind(RunState& state);
  // Runs the process once at the start of the run (as SystemC's initialization would).
  void start_run();
  std::uint64_t activations() const { return activations_; }

 private:
  struct Transfer {
    OpId op;
    std::uint32_t queue;
    Picoseconds data_start_ps;    // end of the issue phase
    double remaining_bytes;       // bytes still to move
    double rate = 0;              // bytes per ps while in the data phase
    Picoseconds finish_ps = 0;
    Flow flow;
    std::uint64_t ring_seq = 0;          // its place in its queue's dispatch order
    double bytes_per_unit = 1;           // bytes per unit of its flow's rate (a unit: a share of its dominant resource)
  };
  class QueueWake : public QueueListener {
   public:
    QueueWake(DmaModule& m, std::uint32_t queue) : module_(m), queue_(queue) {}
    void wake(Picoseconds at_ps) override { module_.wake_queue(queue_, at_ps); }
   private:
    DmaModule& module_;
    std::uint32_t queue_;
  };

  void step();
  void wake_queue(std::uint32_t queue, Picoseconds at_ps);
  void consider(std::uint32_t queue);
  // New rates and finishing times for the transfers moving bytes; returns the earliest finish (max: none).
  Picoseconds share_bandwidth(Picoseconds now);
  Transfer begin(OpId op, std::uint32_t queue, Picoseconds now);
  Picoseconds now_ps() const;

  RunState* state_ = nullptr;
  sc_core::sc_event wake_;
  DmaQueueModel queues_;                         // issue stages, places in flight, descriptor processing
  std::vector<char> considered_;                 // per graph queue: listed in candidates_
  std::vector<char> ring_busy_;                  // per graph queue: one of its transfers is moving bytes
  std::vector<std::uint64_t> ring_next_;         // per graph queue: the dispatch number whose bytes go next
  std::vector<std::uint64_t> ring_dispatched_;   // per graph queue: transfers dispatched so far
  bool ring_free_for(const Transfer& t) const { return !ring_busy_[t.queue] && ring_next_[t.queue] == t.ring_seq; }
  std::vector<std::uint32_t> candidates_;        // queues that may start their head: woken, freed or waiting
  std::vector<std::uint32_t> still_waiting_;     // candidates whose head is ready later
  std::vector<std::unique_ptr<QueueWake>> listeners_;  // per graph queue, kept across runs
  std::vector<Transfer> waiting_;                // in the fixed phase
  std::vector<Transfer> moving_;                 // in the data phase
  std::vector<double> capacity_;                 // bytes per ps: cores' DMA, HBM share, link
  std::vector<Flow> flows_;
  std::vector<double> rates_;
  FairShareScratch share_scratch_;
  Picoseconds last_update_ = 0;
  std::uint64_t activations_ = 0;
};

}  // namespace stasim
