// Entry points that run a schedule graph on the SystemC model. A SystemC kernel runs once per process:
// simulate() uses this process (the CLI's single run), simulate_isolated() a forked child (tests, sweeps),
// which sends the per-op timings back; both validate the graph first and return the same SimResult.
#pragma once

#include "sim/core/graph_validation.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

SimResult simulate(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {},
                   const BufferLocator& buffer_where = {});
SimResult simulate_isolated(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {},
                            const BufferLocator& buffer_where = {});

// Runs the kernel without validating or summarizing (the bench times these phases separately). Throws
// DeadlockError, naming ops by `where`, when the run ends with ops not executed.
RawRun run_kernel(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {});
// Turns the kernel's timings into the full result (activity, SBUF/PSUM peaks, critical path).
SimResult summarize(const ScheduleGraph& graph, const HardwareConfig& hw, RawRun raw);

}  // namespace stasim
