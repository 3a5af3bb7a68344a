// The per-op table of `--ops FILE.csv`: one row per simulated op, for pandas and spreadsheets. Columns:
//   op, core, queue (tensor/vector/scalar/gpsimd/collective or dma<N>), engine, layer, expert (empty when the op
//   has none), phase, kind, start_ns, end_ns, duration_ns, bound_by, critical (0/1), dtype, shape, bytes, src,
//   dst, dge, bytes_per_partition, achieved_gbps (DMA only), instructions (the instructions the op is, as a profile counts them,
//   sim/core/isa_instructions.hpp: what it adds to the run's engine instruction counts).
// Rows in op id order (each queue's program order is preserved within it). A pure function of (graph, result).
#pragma once

#include <string>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

std::string op_table_csv(const ScheduleGraph& graph, const SimResult& result);

}  // namespace stasim
