#include "sim/kernel/simulate.hpp"

#include <chrono>
#include <utility>

#include "engines/cost_model.hpp"
#include "memory/dma_cost.hpp"
#include "memory/sbuf_occupancy.hpp"
#include "sim/core/dma_descriptors.hpp"
#include "sim/core/instruction_set.hpp"
#include "sim/kernel/accelerator_module.hpp"
#include "sim/kernel/critical_path.hpp"
#include "sim/kernel/result_summary.hpp"
#include "sim/kernel/time_budget.hpp"

namespace stasim {

void make_run_graph(const ScheduleGraph& graph, const HardwareConfig& hw, RunGraph& run) {
  run.graph = &graph;
  run.semaphore_ps = ps_from_ns(hw.semaphore_ns);
  run.completion_ps = ps_from_ns(hw.dma.completion_ns);
  run.op_bits.assign(graph.size(), 0);
  run.queue_latency_ps.assign(graph.queues().size(), 0);
  // Every record is appended below, once: no fill pass before (the capacity stays from run to run).
  run.ops.clear();
  run.ops.reserve(graph.size());
  std::size_t transfers = 0;
  for (const Queue& q : graph.queues())
    if (q.engine == Engine::dma) transfers += q.ops.size();
  run.dma.clear();
  run.dma.reserve(transfers);
  // In id order, which reads the ops front to back (a queue's ops are spread over the whole graph).
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& o = graph.op(v);
    RunOp& r = run.ops.emplace_back();
    r.core = o.core;
    r.engine = o.engine;
    r.psum_bank = o.psum_bank;
    r.releases_bank = o.releases_psum_bank;
    if (o.engine == Engine::dma) {
      // An explicit duration occupies the queue and no bandwidth.
      RunDma d;
      d.uses_hbm = touches_hbm(o);
      d.crosses_cores = crosses_cores(o);
      if (o.duration_ps >= 0) {
        r.duration_ps = o.duration_ps;
      } else {
        const cost::DmaPlan plan = cost::plan_dma(o, hw);
        r.duration_ps = plan.issue_ps;
        d.bytes = static_cast<double>(o.bytes);
        d.max_bytes_per_ps = plan.max_bytes_per_ps;
        d.descriptor_ps = plan.descriptor_ps;
      }
      r.aux = static_cast<std::uint32_t>(run.dma.size());
      run.dma.push_back(d);
      continue;
    }
    r.aux = o.psum_group;
    r.duration_ps = cost::op_duration(o, hw);
    // One latency per engine (its clock and pipeline); ops without one (given times, descriptor generation)
    // say so per op.
    const Picoseconds latency = cost::op_latency_ps(o, hw);
    if (latency > 0) {
      run.op_bits[v] = 1;
      run.queue_latency_ps[graph.queue_of(v)] = latency;
    }
    if (o.engine == Engine::scalar) run.op_bits[v] |= static_cast<std::uint8_t>(stasim::activation_table(o.func) << 1);
  }
}

RawRun run_kernel(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where) {
  auto begin = std::chrono::steady_clock::now();
  AcceleratorModule& top = AcceleratorModule::of_this_process();
  make_run_graph(graph, hw, top.flat_graph());
  RawRun raw = top.run(top.flat_graph(), hw, where);
  raw.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  return raw;
}

SimResult summarize(const ScheduleGraph& graph, const HardwareConfig& hw, RawRun raw, const BufferLocator& buffer_where) {
  SimResult r;
  r.ops = std::move(raw.timings);
  r.kernel_activations = raw.kernel_activations;
  r.wall_ms = raw.wall_ms;
  r.psum_peak_banks = raw.peak_psum_banks;
  summarize_activity(graph, hw, r, raw.active_ps);
  SbufPeak peak = sbuf_peak(graph, hw, r.ops, buffer_where);
  r.sbuf_peak_bytes = peak.bytes;
  r.sbuf_peak_bytes_per_partition = peak.bytes_per_partition;
  r.sbuf_capacity_bytes = std::uint64_t(hw.sbuf.partitions) * hw.sbuf.usable_bytes_per_partition();
  r.critical_path = critical_path(graph, r.ops);
  return r;
}

SimResult simulate(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where,
                   const BufferLocator& buffer_where) {
  validate_graph(graph, hw, where, buffer_where);
  check_time_budget(graph, hw, where);
  return summarize(graph, hw, run_kernel(graph, hw, where), buffer_where);
}

}  // namespace stasim

// libsystemc carries its own main() that calls sc_main(); stasim's programs have their own main and start the
// kernel through run_kernel(), but the library still needs the symbol. It is never called.
extern "C" int sc_main(int, char**) { return 1; }
