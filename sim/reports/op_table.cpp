#include "sim/reports/op_table.hpp"

#include <cstdio>
#include <vector>

#include "sim/core/isa_instructions.hpp"
#include "sim/reports/op_facts.hpp"

namespace stasim {
namespace {

// RFC 4180: a cell with a comma, quote or newline is quoted, quotes doubled (op labels hold brackets, never
// commas today, but the table must not depend on that).
std::string cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double value, const char* format) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string ns(Picoseconds ps) { return number(ns_from_ps(ps), "%.3f"); }

}  // namespace

std::string op_table_csv(const ScheduleGraph& graph, const SimResult& result) {
  std::string out =
      "op,core,queue,engine,layer,expert,phase,kind,start_ns,end_ns,duration_ns,bound_by,critical,dtype,shape,"
      "bytes,src,dst,dge,bytes_per_partition,achieved_gbps,instructions\n";
  std::vector<char> critical(graph.size(), 0);
  for (OpId v : result.critical_path.ops) critical[v] = 1;
  for (OpId v = 0; v < graph.size(); ++v) {
    const OpFacts f = op_facts(graph, result, v);
    const Op& op = *f.op;
    const bool dma = moves_bytes(op);
    out += cell(f.name) + ',' + std::to_string(op.core) + ',' + f.queue + ',' + engine_name(op.engine) + ',' +
           (f.label.layer >= 0 ? std::to_string(f.label.layer) : "") + ',' +
           (f.label.expert >= 0 ? std::to_string(f.label.expert) : "") + ',' + cell(f.phase) + ',' +
           op_kind_name(op.kind) + ',' + ns(f.start_ps) + ',' + ns(f.end_ps) + ',' + ns(f.end_ps - f.start_ps) + ',' +
           cell(f.bound_by) + ',' + (critical[v] ? "1" : "0") + ',' + dtype_name(op.dtype) + ',' + f.shape + ',' +
           (dma ? std::to_string(f.bytes) : "") + ',' + f.src + ',' + f.dst + ',' + f.dge + ',' +
           (dma ? number(f.bytes_per_partition, "%.6g") : "") + ',' + (dma ? number(f.achieved_gbps, "%.3f") : "") +
           ',' + std::to_string(isa_instructions(op)) + '\n';
  }
  return out;
}

}  // namespace stasim
