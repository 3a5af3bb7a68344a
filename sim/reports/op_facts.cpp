#include "sim/reports/op_facts.hpp"

#include <algorithm>
#include <cctype>

#include "sim/reports/result_report.hpp"

namespace stasim {
namespace {

// The number after `prefix` at the start of a dot-separated part ("L3", "e12"); -1 when the part is not that.
int numbered_part(std::string_view name, std::size_t begin, std::size_t end, char prefix) {
  if (end - begin < 2 || name[begin] != prefix) return -1;
  int value = 0;
  for (std::size_t i = begin + 1; i < end; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || value > 1000000) return -1;
    value = value * 10 + (name[i] - '0');
  }
  return value;
}

}  // namespace

OpLabelParts parse_op_label(std::string_view name) {
  OpLabelParts parts;
  std::size_t begin = 0;
  for (bool first = true; begin <= name.size(); first = false) {
    std::size_t end = std::min(name.find('.', begin), name.size());
    if (first) parts.layer = numbered_part(name, begin, end, 'L');
    else if (parts.expert < 0) parts.expert = numbered_part(name, begin, end, 'e');
    begin = end + 1;
  }
  return parts;
}

std::string location_text(Location location, std::uint8_t peer_core) {
  switch (location) {
    case Location::hbm: return "hbm";
    case Location::sbuf: return "sbuf";
    case Location::psum: return "psum";
    case Location::peer: return "core" + std::to_string(peer_core);
  }
  return "sbuf";
}

OpFacts op_facts(const ScheduleGraph& graph, const SimResult& result, OpId v) {
  const Op& op = graph.op(v);
  const OpTiming& t = result.ops[v];
  OpFacts f;
  f.op = &op;
  f.name = graph.name(v);
  f.phase = graph.phases()[op.phase];
  f.queue = op.engine == Engine::dma ? "dma" + std::to_string(op.queue) : engine_name(op.engine);
  f.label = parse_op_label(f.name);
  f.start_ps = t.start_ps;
  f.end_ps = t.end_ps;
  f.bound_by = bound_by_text(graph, t);
  if (op.kind == OpKind::matmul) {
    f.shape = "k" + std::to_string(op.k) + " m" + std::to_string(op.m) + " n" + std::to_string(op.n);
  } else {
    f.shape = "p" + std::to_string(op.partitions);
    if (op.free) f.shape += " f" + std::to_string(op.free);
  }
  if (moves_bytes(op)) {
    f.bytes = op.bytes;
    f.src = location_text(op.src, op.peer_core);
    f.dst = location_text(op.dst, op.peer_core);
    if (op.engine == Engine::dma) f.dge = dge_mode_name(op.dge);
    f.bytes_per_partition = static_cast<double>(op.bytes) / std::max<std::uint32_t>(op.partitions, 1);
    const Picoseconds duration = t.end_ps - t.start_ps;
    if (duration > 0) f.achieved_gbps = static_cast<double>(op.bytes) * 1000.0 / static_cast<double>(duration);
  }
  return f;
}

}  // namespace stasim
