// Chrome/Perfetto trace-event JSON of a finished simulation (ui.perfetto.dev and chrome://tracing open it):
// one process per physical core, one track per compute engine and per DMA queue, each op a slice named by its
// role, "kind [phase]" (the viewers colour slices by name, so a role keeps one colour), with the op's own label
// and its facts in the args (sim/reports/op_facts.hpp); flow arrows for dependencies between tracks; counter
// tracks for the HBM bandwidth in use, the SBUF bytes per partition live and the PSUM banks held; and the
// critical path marked (its ops copied onto a "critical path" track per core and flagged `critical` in their
// args). A pure function of (graph, result, hardware, options).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct TraceOptions {
  std::string title;        // shown in the process names ("dense: core 0"); empty = "core 0"
  int first_pid = 0;        // process id of core 0 (cores follow), so several runs can share one file
  // Only the ops of layers first_layer..last_layer (inclusive; op labels "L<n>.") and the counters over their
  // time span; -1 = every op.
  int first_layer = -1, last_layer = -1;
  nlohmann::json provenance;  // trace_json puts it in otherData when not null
};

// Track ids inside a core's process: compute engines 1..5 in Engine order, DMA queue q at 100 + q, the
// critical-path copy at 1000.
int trace_engine_tid(Engine engine, std::uint16_t dma_queue);
inline constexpr int kCriticalPathTid = 1000;

// The HBM bandwidth counter is derived from the op timings: a transfer that reads or writes HBM moves its
// bytes at a constant rate over its data phase (from start + the DMA fixed cost to its end), bytes / data time;
// the counter is the sum of those rates (bytes per ns = GB/s) over the core's transfers in flight.
nlohmann::json trace_json(const ScheduleGraph& graph, const SimResult& result, const HardwareConfig& hw,
                          const TraceOptions& options = {});

// Appends the events of trace_json(...) to an existing document's traceEvents (one file, several runs).
void append_trace(nlohmann::json& document, const ScheduleGraph& graph, const SimResult& result,
                  const HardwareConfig& hw, const TraceOptions& options);

}  // namespace stasim
