// RunGraph: the flat form of a validated schedule graph that the kernel runs on. Every op's cost is computed
// once, before the run (the cost formulas are pure: engines/cost_model.hpp, memory/dma_cost.hpp), and kept
// in a 16-byte record with what the kernel reads on every start and finish (core, engine, PSUM bank), so the
// event loop touches neither the 72-byte Op nor a cost formula. Successors are the graph's own out-edge lists
// (compressed rows in insertion order); queues are the graph's. Built by make_run_graph (sim/kernel/simulate.hpp),
// into the process kernel's one RunGraph, whose memory serves run after run.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

struct RunOp {
  Picoseconds duration_ps = 0;   // compute ops: the interval (engine held); DMA: the issue before bytes move
  std::uint32_t aux = 0;         // tensor ops: PSUM group (kNoGroup: none); DMA: index into RunGraph::dma
  std::uint8_t core = 0;
  Engine engine = Engine::tensor;
  std::int8_t psum_bank = -1;        // accumulates into this bank of its core
  std::int8_t releases_bank = -1;    // frees this bank of its core when it ends
};
static_assert(sizeof(RunOp) == 16, "RunOp is read on every start and finish: keep it one quarter of a cache line");

// The bytes a DMA transfer moves at the shared rate, its own limits (memory/dma_cost.hpp) and the resources it
// shares (max-min fair sharing).
struct RunDma {
  double bytes = 0;                // 0: the issue phase is all of it
  double max_bytes_per_ps = 0;     // its DMA engines' rate
  Picoseconds descriptor_ps = 0;   // its descriptors on the core's descriptor processing (memory/dma_queue_model.hpp)
  bool uses_hbm = false;
  bool crosses_cores = false;
};

struct RunGraph {
  static constexpr std::uint32_t kNoGroup = 0xFFFFFFFFu;
  const ScheduleGraph* graph = nullptr;
  std::vector<RunOp> ops;
  std::vector<RunDma> dma;
  Picoseconds semaphore_ps = 0;      // added to a dependency between two engines or two cores
  Picoseconds completion_ps = 0;     // added to a dependency on a DMA transfer (its completion semaphore)
  // The pipeline latency of each queue's engine (engines/cost_model.hpp op_latency_ps): from the end of an op's
  // interval (duration_ps) to its result.
  std::vector<Picoseconds> queue_latency_ps;
  // Per op, one byte read once when it starts: bit 0 whether it has its engine's latency, bits 1-7 the ScalarE
  // activation table it needs (0: none). Kept here so that a start does not read the op's whole record.
  std::vector<std::uint8_t> op_bits;
  bool has_latency(OpId op) const { return op_bits[op] & 1u; }
  std::uint8_t activation_table(OpId op) const { return op_bits[op] >> 1; }
};

}  // namespace stasim
