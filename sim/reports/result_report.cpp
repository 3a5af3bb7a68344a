#include "sim/reports/result_report.hpp"

#include <fmt/format.h>

#include <iostream>

#include "sim/core/output_file.hpp"
#include "sim/kernel/critical_path.hpp"

namespace stasim {
namespace {

// Times are integer picoseconds, so three decimals of ns are exact.
double ns(Picoseconds ps) { return static_cast<double>(ps) / 1000.0; }

std::string fmt_us(Picoseconds ps) { return fmt::format("{:.3f}", static_cast<double>(ps) / 1e6); }

}  // namespace

std::string bound_by_text(const ScheduleGraph& graph, const OpTiming& t) {
  switch (t.bound) {
    case BoundKind::start: return "start";
    case BoundKind::dep: return "dep:" + graph.name(t.bound_op);
    case BoundKind::queue: return "queue:" + graph.name(t.bound_op);
    case BoundKind::psum: return "psum:" + graph.name(t.bound_op);
  }
  return "start";
}

nlohmann::json result_json(const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& r, bool include_ops) {
  using nlohmann::json;
  json doc;
  doc["hardware"] = hw.name;
  doc["total_ns"] = ns(r.total_ps);
  if (include_ops) {
    json ops = json::array();
    for (OpId v = 0; v < graph.size(); ++v) {
      const Op& op = graph.op(v);
      const OpTiming& t = r.ops[v];
      json o = {{"name", graph.name(v)}, {"engine", engine_name(op.engine)}, {"core", op.core},
                {"start_ns", ns(t.start_ps)}, {"end_ns", ns(t.end_ps)}, {"bound_by", bound_by_text(graph, t)}};
      if (op.engine == Engine::dma) o["queue"] = op.queue;
      if (op.phase) o["phase"] = graph.phases()[op.phase];
      ops.push_back(std::move(o));
    }
    doc["ops"] = std::move(ops);
  }
  json engines = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    if (static_cast<Engine>(e) != Engine::dma)
      engines[engine_name(static_cast<Engine>(e))] = {{"active_ns", ns(r.engines[e].active_ps)},
                                                    {"instructions", r.engines[e].instructions}};
  doc["engines"] = engines;
  json cores = json::array();
  for (std::size_t c = 0; c < r.per_core.size(); ++c) {
    json core = json::object();
    for (int e = 0; e < kEngineCount; ++e)
      core[engine_name(static_cast<Engine>(e))] = {{"active_ns", ns(r.per_core[c][e].active_ps)},
                                                   {"instructions", r.per_core[c][e].instructions}};
    cores.push_back(core);
  }
  doc["per_core"] = cores;
  doc["dma"] = {{"active_ns", ns(r.dma_active_ps)}, {"hbm_read_bytes", r.hbm_read_bytes},
                {"hbm_write_bytes", r.hbm_write_bytes}, {"transfers", r.dma_transfers}};
  doc["sbuf"] = {{"peak_bytes", r.sbuf_peak_bytes}, {"peak_bytes_per_partition", r.sbuf_peak_bytes_per_partition},
                 {"capacity_bytes", r.sbuf_capacity_bytes}};
  doc["psum"] = {{"peak_banks", r.psum_peak_banks}, {"banks", hw.psum.banks}};
  json path_ops = json::array();
  for (OpId v : r.critical_path.ops) path_ops.push_back(graph.name(v));
  json by_engine = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    by_engine[engine_name(static_cast<Engine>(e))] = ns(r.critical_path.by_engine_ps[e]);
  json by_phase = json::object();
  for (const auto& [phase, ps] : r.critical_path.by_phase_ps) by_phase[phase.empty() ? "untagged" : phase] = ns(ps);
  json by_queue = json::object();
  for (const auto& [queue, ps] : r.critical_path.by_dma_queue_ps) by_queue[queue] = ns(ps);
  doc["critical_path"] = {{"total_ns", ns(r.critical_path.total_ps)}, {"ops", path_ops},
                          {"by_engine_ns", by_engine}, {"by_phase_ns", by_phase}, {"by_dma_queue_ns", by_queue},
                          {"wait_ns", ns(r.critical_path.wait_ps)}};
  // No wall time: the same inputs give byte-identical JSON.
  doc["sim"] = {{"ops", graph.size()}, {"kernel_activations", r.kernel_activations}};
  return doc;
}

void print_summary(std::ostream& out, const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& r) {
  out << "hardware " << hw.name << " (" << hw.lnc << " physical core" << (hw.lnc > 1 ? "s" : "") << "), "
      << graph.size() << " ops\n";
  out << "total " << fmt_us(r.total_ps) << " us\n\n";
  out << fmt::format("{:<8} {:>14} {:>8} {:>14} {:>12}\n", "engine", "active_us", "busy_%", "instructions",
                     "critical_us");
  for (int e = 0; e < kEngineCount; ++e) {
    double busy = r.total_ps > 0 ? 100.0 * r.engines[e].active_ps / r.total_ps : 0.0;
    out << fmt::format("{:<8} {:>14} {:>8.1f} {:>14} {:>12}\n", engine_name(static_cast<Engine>(e)),
                       fmt_us(r.engines[e].active_ps), busy, r.engines[e].instructions,
                       fmt_us(r.critical_path.by_engine_ps[e]));
  }
  out << fmt::format("{:<8} {:>14} {:>8} {:>14} {:>12}\n\n", "wait", "", "", "", fmt_us(r.critical_path.wait_ps));
  out << "dma: " << r.dma_transfers << " transfers, HBM read " << r.hbm_read_bytes << " B, written "
      << r.hbm_write_bytes << " B\n";
  out << "sbuf peak: " << r.sbuf_peak_bytes_per_partition << " of " << hw.sbuf.usable_bytes_per_partition()
      << " usable bytes per partition; psum peak: " << r.psum_peak_banks << " of " << hw.psum.banks << " banks\n";
  if (!r.critical_path.by_dma_queue_ps.empty()) {
    // The DMA queues the critical path runs through, longest first.
    out << "critical path by DMA queue (us):";
    for (const auto& [ps, queue] : longest_first(r.critical_path.by_dma_queue_ps)) out << ' ' << queue << ' ' << fmt_us(ps);
    out << '\n';
  }
  out << "critical path: " << r.critical_path.ops.size() << " ops";
  std::size_t shown = 0;
  for (OpId v : r.critical_path.ops) {
    if (shown++ == 12) {
      out << " ...";
      break;
    }
    out << (shown == 1 ? ": " : " -> ") << graph.name_view(v);
  }
  out << '\n';
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  if (path == "-") {
    stdout_data() << doc.dump(2) << '\n';
    return;
  }
  write_output_file(path, doc.dump(2) + "\n", "the JSON file");
}

void write_text_file(const std::string& path, const std::string& bytes, const std::string& what) {
  if (path == "-") {
    stdout_data() << bytes;
    return;
  }
  write_output_file(path, bytes, "the " + what + " file");
}

}  // namespace stasim
