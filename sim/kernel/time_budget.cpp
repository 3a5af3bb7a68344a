#include "sim/kernel/time_budget.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "engines/cost_model.hpp"
#include "memory/dma_cost.hpp"
#include "sim/core/dma_descriptors.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

std::string seconds(double ps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", ps / 1e12);
  return text;
}

}  // namespace

void check_time_budget(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where) {
  OpLocator who = where;
  if (!who) who = [&graph](OpId id) { return "op '" + std::string(graph.name(id)) + "'"; };
  // The slowest rate any transfer can get. Max-min sharing keeps some resource saturated while transfers are in
  // flight, so the DMA work of the whole graph finishes within (sum of bytes) / this rate plus each transfer's
  // descriptor time (memory/dma_cost.hpp: a transfer's data phase is the longer of the two).
  struct Rate {
    double bytes_per_ns;
    const char* key;
  };
  Rate slowest = {hw.dma.bytes_per_ns(), "core.dma.engines x core.dma.bytes_per_ns_per_engine"};
  for (Rate r : {Rate{hw.hbm_bytes_per_ns_available(), "device.hbm.bandwidth_gbps (the simulated cores' share)"},
                 Rate{hw.link.bytes_per_ns, "core.link.bytes_per_ns"}})
    if (r.bytes_per_ns < slowest.bytes_per_ns) slowest = r;

  const double semaphore_ps = hw.semaphore_ns * 1000.0;
  std::vector<std::uint32_t> in_degree;  // the graph's in-edge lists would be built for this alone
  graph.in_degrees(in_degree);
  double total_ps = 0;
  OpId longest = kNoOp;
  double longest_ps = -1;
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& op = graph.op(v);
    double ps;
    if (op.engine == Engine::dma && op.duration_ps < 0) {
      // In double: a hostile shape can take more descriptors than int64 picoseconds can time.
      const double descriptor_ps = static_cast<double>(descriptor_count(op)) * hw.dma.descriptor_ns * 1000.0;
      ps = static_cast<double>(dma_issue_ps(op, hw)) + hw.dma.completion_ns * 1000.0 +
           std::max(static_cast<double>(op.bytes) / slowest.bytes_per_ns * 1000.0, descriptor_ps);
    } else {
      ps = cost::op_duration_exact_ps(op, hw) + static_cast<double>(cost::op_latency_ps(op, hw));
      if (op.engine == Engine::scalar) ps += static_cast<double>(cost::table_load_ps(hw));
      // A throttled tensor engine runs at no less than its start fraction (engines/tensor_throttle.hpp).
      if (op.engine == Engine::tensor && hw.tensor.throttle_start_fraction < 1)
        ps /= std::max(hw.tensor.throttle_start_fraction, 1e-3);
    }
    ps += semaphore_ps * static_cast<double>(in_degree[v]);
    if (!(ps >= 0)) ps = kMaxSimulatedPs * 2;  // NaN: treat as beyond any budget
    total_ps += ps;
    if (ps > longest_ps) {
      longest_ps = ps;
      longest = v;
    }
  }
  if (total_ps <= kMaxSimulatedPs) return;
  const Op& op = graph.op(longest);
  std::string detail;
  if (op.engine == Engine::dma && op.duration_ps < 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", slowest.bytes_per_ns);
    detail = std::to_string(op.bytes) + " bytes (" + std::to_string(op.partitions) + " partitions) at the slowest rate " +
             rate + " B/ns, " + slowest.key;
  } else {
    detail = std::string("on the ") + engine_name(op.engine) + " engine";
  }
  throw InputError(who(longest) + ": alone takes " + seconds(longest_ps) + " (" + detail + "); the graph's " +
                   std::to_string(graph.size()) + " ops add up to " + seconds(total_ps) +
                   ", beyond the simulator's limit of " + seconds(kMaxSimulatedPs) +
                   " of simulated time (int64 picoseconds)");
}

}  // namespace stasim
