// DmaModule: every DMA queue of every simulated core, as one SystemC process, because transfers in flight
// share bandwidth and so cannot be timed one by one. A queue runs one transfer at a time in program order;
// a transfer pays its issue cost (memory/dma_cost.hpp), then moves its bytes at a max-min fair rate over its
// core's DMA engines, the HBM share of the simulated cores and (across cores) the link, never faster than its
// own engines and never finishing before its descriptors are processed; rates are recomputed at every start
// and finish. The process sleeps until the next start, phase change or finish.
#pragma once

#include <systemc>

#include <memory>
#include <vector>

#include "memory/bandwidth_sharing.hpp"
#include "sim/kernel/run_state.hpp"

namespace stasim {

class DmaModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(DmaModule);
  DmaModule(sc_core::sc_module_name name, RunState& state);
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
    Picoseconds descriptors_end_ps = 0;  // its descriptors are processed by then (no finish before)
    double max_rate = 0;                 // bytes per ps its DMA engines can move
  };
  class QueueWake : public QueueListener {
   public:
    QueueWake(DmaModule& m, std::uint32_t queue) : module_(m), queue_(queue) {}
    void wake(Picoseconds at_ps) override { module_.wake_at(at_ps); }
   private:
    DmaModule& module_;
    std::uint32_t queue_;
  };

  void step();
  void wake_at(Picoseconds at_ps);
  void advance(Picoseconds now);
  void share_bandwidth(Picoseconds now);
  Transfer begin(OpId op, std::uint32_t queue, Picoseconds now);

  RunState& state_;
  sc_core::sc_event wake_;
  std::vector<std::uint32_t> queues_;            // the DMA queues of the graph
  std::vector<char> busy_;                       // per graph queue: a transfer in flight
  std::vector<std::unique_ptr<QueueWake>> listeners_;
  std::vector<Transfer> waiting_;                // in the fixed phase
  std::vector<Transfer> moving_;                 // in the data phase
  std::vector<double> capacity_;                 // bytes per ps: cores' DMA, HBM share, link
  Picoseconds last_update_ = 0;
  std::uint64_t activations_ = 0;
};

}  // namespace stasim
