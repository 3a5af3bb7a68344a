// Entry points that run a schedule graph on the SystemC model. Every simulation of a process runs on the one
// kernel of that process (AcceleratorModule): simulate() validates, runs and summarizes in this process, as
// many times as the caller likes, with the same result as a fresh process would give. Isolation (a process of
// its own per simulation, a time limit) is the worker pool's (sim/studies/worker_pool.hpp).
#pragma once

#include "sim/core/graph_validation.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"
#include "sim/run/run_graph.hpp"

namespace stasim {

SimResult simulate(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {},
                   const BufferLocator& buffer_where = {});

// The flat form of a validated graph, with every op's cost computed (the graph must outlive it), written into
// `run` over what it held before (its memory is reused: no allocation when it held a graph as large).
void make_run_graph(const ScheduleGraph& graph, const HardwareConfig& hw, RunGraph& run);
// Runs the kernel without validating or summarizing (the bench times these phases separately). Throws
// DeadlockError, naming ops by `where`, when the run ends with ops not executed.
RawRun run_kernel(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {});
// Turns the kernel's timings into the full result (activity, SBUF/PSUM peaks, critical path).
SimResult summarize(const ScheduleGraph& graph, const HardwareConfig& hw, RawRun raw,
                    const BufferLocator& buffer_where = {});

}  // namespace stasim
