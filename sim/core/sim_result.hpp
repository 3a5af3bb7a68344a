// SimResult: what one simulation produced. OpTiming is the raw per-op record the kernel writes; the rest is
// derived from it and the graph after the run (summarize in sim/kernel/simulate.hpp), so the kernel only has to hand
// the timings back.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

// What decided an op's start time: nothing (time 0), a dependency, the previous op of its queue, or the op
// that released the PSUM bank it waited for.
enum class BoundKind : std::uint8_t { start, dep, queue, psum };

struct OpTiming {
  Picoseconds start_ps = -1;
  Picoseconds end_ps = -1;
  OpId bound_op = kNoOp;
  BoundKind bound = BoundKind::start;
};

struct EngineStats {
  Picoseconds active_ps = 0;     // union of the engine's instruction intervals (over cores: any core busy)
  Picoseconds active_sum_ps = 0; // over cores: the sum of each physical core's active time (per core: = active_ps)
  std::uint64_t instructions = 0;
};

struct CriticalPath {
  Picoseconds total_ps = 0;
  std::vector<OpId> ops;                                  // in time order
  std::array<Picoseconds, kEngineCount> by_engine_ps{};   // op durations on the path per engine
  std::map<std::string, Picoseconds> by_phase_ps;         // op durations per phase tag ("" = untagged)
  std::map<std::string, Picoseconds> by_dma_queue_ps;     // DMA op durations per queue ("c0.dma15", dma_queue_name)
  Picoseconds wait_ps = 0;                                // semaphore latency and idle gaps
};

// The kernel's raw output: the timings, from which summarize() derives the rest.
struct RawRun {
  std::vector<OpTiming> timings;
  std::uint32_t peak_psum_banks = 0;
  std::uint64_t kernel_activations = 0;
  double wall_ms = 0;   // elaboration and kernel run
  // Each engine's active time as the kernel measured it (sim/run/activity_meter.hpp): per (core, engine),
  // core-major, then per engine over all cores. Empty: summarize() derives it from the timings.
  std::vector<Picoseconds> active_ps;
};

struct SimResult {
  Picoseconds total_ps = 0;
  std::vector<OpTiming> ops;
  std::array<EngineStats, kEngineCount> engines{};                  // over the simulated cores (a rank)
  std::vector<std::array<EngineStats, kEngineCount>> per_core;
  Picoseconds dma_active_ps = 0;                                    // at least one transfer in flight
  std::uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0, dma_transfers = 0;
  std::uint64_t sbuf_peak_bytes = 0, sbuf_peak_bytes_per_partition = 0, sbuf_capacity_bytes = 0;
  std::uint32_t psum_peak_banks = 0;
  CriticalPath critical_path;
  std::uint64_t kernel_activations = 0;
  double wall_ms = 0;
};

}  // namespace stasim
