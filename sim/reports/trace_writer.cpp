#include "sim/reports/trace_writer.hpp"

#include "sim/core/dma_descriptors.hpp"
#include "sim/run/buffer_lifetimes.hpp"
#include "sim/reports/op_facts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace stasim {
namespace {

using nlohmann::json;

// Trace-event timestamps are microseconds; picoseconds / 1e6 keeps every simulated picosecond.
double ts_us(Picoseconds ps) { return static_cast<double>(ps) / 1e6; }

// When a transfer's bytes start to move: after its issue on its queue (sim/core/dma_descriptors.hpp), or at its end when
// it has an explicit duration (which occupies the queue and no bandwidth).
Picoseconds dma_issue_end_ps(const Op& op, const HardwareConfig& hw, const OpTiming& t) {
  if (op.duration_ps >= 0) return t.end_ps;
  return std::min(t.start_ps + dma_issue_ps(op, hw), t.end_ps);
}

json metadata(const char* what, int pid, int tid, const std::string& name) {
  json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

json sort_index(int pid, int tid, int index) {
  return {{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", index}}}};
}

using Changes = std::vector<std::pair<Picoseconds, double>>;

// A step function from (time, delta) changes: one counter event per distinct time in [from, to], the first one
// at `from` carrying the value reached by then.
void emit_counter(json& events, const std::string& name, const std::string& series, int pid, Changes changes,
                  Picoseconds from, Picoseconds to) {
  if (changes.empty()) return;
  std::sort(changes.begin(), changes.end());
  auto push = [&](Picoseconds at, double value) {
    events.push_back({{"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", ts_us(at)}, {"args", {{series, value}}}});
  };
  double value = 0;
  bool before = false;  // changes happened before the window: its first event states the value reached
  bool opened = false;
  for (std::size_t i = 0; i < changes.size();) {
    const Picoseconds t = changes[i].first;
    const double previous = value;
    for (; i < changes.size() && changes[i].first == t; ++i) value += changes[i].second;
    if (std::abs(value) < 1e-9) value = 0;
    if (t < from) {
      before = true;
      continue;
    }
    if (!opened && before && (t > from || t > to)) push(from, previous);
    opened = true;
    if (t > to) return;
    push(t, value);
  }
  if (!opened && before) push(from, value);
}

}  // namespace

int trace_engine_tid(Engine engine, std::uint16_t dma_queue) {
  if (engine == Engine::dma) return 100 + dma_queue;
  return 1 + static_cast<int>(engine);
}

namespace {

// The slice args: the op's label and every fact a reader opens the trace for.
json slice_args(const OpFacts& f) {
  const Op& op = *f.op;
  json args = {{"name", f.name}, {"kind", op_kind_name(op.kind)}, {"phase", f.phase.empty() ? "untagged" : f.phase},
               {"queue", f.queue}, {"start_ns", ns_from_ps(f.start_ps)}, {"end_ns", ns_from_ps(f.end_ps)},
               {"bound_by", f.bound_by}, {"dtype", dtype_name(op.dtype)}, {"shape", f.shape}};
  if (f.label.layer >= 0) args["layer"] = f.label.layer;
  if (f.label.expert >= 0) args["expert"] = f.label.expert;
  if (moves_bytes(op)) {
    args["bytes"] = f.bytes;
    args["src"] = f.src;
    args["dst"] = f.dst;
    if (!f.dge.empty()) args["dge"] = f.dge;
    args["bytes_per_partition"] = f.bytes_per_partition;
    args["achieved_gbps"] = std::round(f.achieved_gbps * 1000.0) / 1000.0;
  }
  if (f.critical) args["critical"] = true;
  return args;
}

// Whether op `v` is in the traced layer range.
bool traced(const ScheduleGraph& graph, OpId v, const TraceOptions& options) {
  if (options.first_layer < 0) return true;
  const int layer = parse_op_label(graph.name_view(v)).layer;
  return layer >= options.first_layer && layer <= options.last_layer;
}

}  // namespace

void append_trace(json& doc, const ScheduleGraph& graph, const SimResult& r, const HardwareConfig& hw,
                  const TraceOptions& options) {
  json& events = doc["traceEvents"];
  if (!events.is_array()) events = json::array();
  auto pid_of = [&](std::uint8_t core) { return options.first_pid + core; };
  std::vector<char> in(graph.size(), 0);
  Picoseconds window_begin = std::numeric_limits<Picoseconds>::max(), window_end = 0;
  for (OpId v = 0; v < graph.size(); ++v) {
    if (!traced(graph, v, options)) continue;
    in[v] = 1;
    window_begin = std::min(window_begin, r.ops[v].start_ps);
    window_end = std::max(window_end, r.ops[v].end_ps);
  }
  std::set<std::uint8_t> cores;
  for (const Queue& q : graph.queues()) cores.insert(q.core);
  for (std::uint8_t core : cores) {
    std::string name = (options.title.empty() ? "" : options.title + ": ") + "core " + std::to_string(core);
    events.push_back(metadata("process_name", pid_of(core), -1, name));
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid_of(core)},
                      {"args", {{"sort_index", pid_of(core)}}}});
  }
  for (const Queue& q : graph.queues()) {
    int tid = trace_engine_tid(q.engine, q.dma_queue);
    std::string name = q.engine == Engine::dma ? "dma queue " + std::to_string(q.dma_queue) : engine_name(q.engine);
    events.push_back(metadata("thread_name", pid_of(q.core), tid, name));
    events.push_back(sort_index(pid_of(q.core), tid, tid));
  }

  std::vector<char> critical(graph.size(), 0);
  for (OpId v : r.critical_path.ops) critical[v] = 1;
  std::set<std::uint8_t> critical_cores;
  for (OpId v : r.critical_path.ops)
    if (in[v]) critical_cores.insert(graph.op(v).core);
  for (std::uint8_t core : critical_cores) {
    events.push_back(metadata("thread_name", pid_of(core), kCriticalPathTid, "critical path"));
    events.push_back(sort_index(pid_of(core), kCriticalPathTid, -1));  // on top
  }

  for (OpId v = 0; v < graph.size(); ++v) {
    if (!in[v]) continue;
    OpFacts facts = op_facts(graph, r, v);
    facts.critical = critical[v];
    const Op& op = graph.op(v);
    const std::string role = op_kind_name(op.kind);
    json slice = {{"ph", "X"}, {"name", facts.phase.empty() ? role : role + " [" + facts.phase + "]"},
                  {"cat", facts.phase.empty() ? "untagged" : facts.phase}, {"pid", pid_of(op.core)},
                  {"tid", trace_engine_tid(op.engine, op.queue)}, {"ts", ts_us(facts.start_ps)},
                  {"dur", ts_us(facts.end_ps - facts.start_ps)}, {"args", slice_args(facts)}};
    events.push_back(slice);
    if (critical[v]) {
      slice["tid"] = kCriticalPathTid;
      slice["cname"] = "terrible";  // the trace viewers' red
      events.push_back(std::move(slice));
    }
  }

  // A flow arrow for each dependency between two different tracks: from the producer's slice to the consumer's.
  std::uint64_t flow_id = static_cast<std::uint64_t>(options.first_pid) << 32;
  for (ScheduleGraph::EdgeId e = 0; e < graph.edge_count(); ++e) {
    OpId from = graph.source(e);
    OpId to = graph.target(e);
    if (graph.queue_of(from) == graph.queue_of(to) || !in[from] || !in[to]) continue;
    const Op& a = graph.op(from);
    const Op& b = graph.op(to);
    ++flow_id;
    events.push_back({{"ph", "s"}, {"name", "dep"}, {"cat", "dep"}, {"id", flow_id}, {"pid", pid_of(a.core)},
                      {"tid", trace_engine_tid(a.engine, a.queue)}, {"ts", ts_us(r.ops[from].start_ps)}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "dep"}, {"cat", "dep"}, {"id", flow_id},
                      {"pid", pid_of(b.core)}, {"tid", trace_engine_tid(b.engine, b.queue)},
                      {"ts", ts_us(r.ops[to].start_ps)}});
  }

  // Counters per core: HBM bandwidth in use (GB/s), SBUF bytes per partition live, PSUM banks held. Over the
  // traced window only, starting from the value at its beginning.
  std::map<std::uint8_t, Changes> hbm, sbuf, psum;
  for (OpId v = 0; v < graph.size(); ++v) {
    const Op& op = graph.op(v);
    if (op.engine != Engine::dma || op.bytes == 0) continue;
    if (!touches_hbm(op)) continue;
    Picoseconds data_start = dma_issue_end_ps(op, hw, r.ops[v]);
    Picoseconds data_ps = r.ops[v].end_ps - data_start;
    if (data_ps <= 0) continue;
    double bytes_per_ns = static_cast<double>(op.bytes) * 1000.0 / static_cast<double>(data_ps);
    hbm[op.core].emplace_back(data_start, bytes_per_ns);
    hbm[op.core].emplace_back(r.ops[v].end_ps, -bytes_per_ns);
  }
  const std::vector<BufferLifetime> lifetimes = buffer_lifetimes(graph, r.ops);
  for (std::size_t b = 0; b < lifetimes.size(); ++b) {
    const Buffer& buffer = graph.buffers()[b];
    if (buffer.space != Location::sbuf || !lifetimes[b].used()) continue;
    sbuf[buffer.core].emplace_back(lifetimes[b].first_ps, static_cast<double>(buffer.bytes_per_partition));
    sbuf[buffer.core].emplace_back(lifetimes[b].last_ps, -static_cast<double>(buffer.bytes_per_partition));
  }
  for (const PsumGroup& g : graph.psum_groups()) {
    if (g.first_op == kNoOp) continue;
    OpId release = g.release_op != kNoOp ? g.release_op : g.last_op;
    psum[g.core].emplace_back(r.ops[g.first_op].start_ps, 1.0);
    psum[g.core].emplace_back(r.ops[release].end_ps, -1.0);
  }
  const Picoseconds from = options.first_layer < 0 ? 0 : window_begin;
  const Picoseconds to = options.first_layer < 0 ? std::numeric_limits<Picoseconds>::max() : window_end;
  auto emit = [&](std::map<std::uint8_t, Changes>& per_core, const char* name, const char* series) {
    for (auto& [core, changes] : per_core) emit_counter(events, name, series, pid_of(core), std::move(changes), from, to);
  };
  emit(hbm, "HBM bandwidth in use (GB/s)", "GB/s");
  emit(sbuf, "SBUF in use (bytes per partition)", "bytes");
  emit(psum, "PSUM banks held", "banks");
}

json trace_json(const ScheduleGraph& graph, const SimResult& r, const HardwareConfig& hw, const TraceOptions& options) {
  json doc = {{"displayTimeUnit", "ns"}, {"traceEvents", json::array()}};
  doc["otherData"] = {{"hardware", hw.name}, {"total_ns", ns_from_ps(r.total_ps)},
                      {"hbm_counter", "bytes / data time of each HBM transfer, summed over transfers in flight"},
                      {"sbuf_counter", "bytes per partition of the SBUF buffers live (first use to last use)"},
                      {"slice_names", "kind [phase]; the op's own label is args.name"}};
  if (options.first_layer >= 0)
    doc["otherData"]["layers"] = std::to_string(options.first_layer) + ":" + std::to_string(options.last_layer);
  if (!options.provenance.is_null()) doc["otherData"]["provenance"] = options.provenance;
  append_trace(doc, graph, r, hw, options);
  return doc;
}

}  // namespace stasim
