#include "sim/reports/op_table.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/core/isa_instructions.hpp"
#include "sim/reports/csv_writer.hpp"
#include "sim/reports/op_facts.hpp"

namespace stasim {
namespace {

std::string ns(Picoseconds ps) { return fmt::format("{:.3f}", ns_from_ps(ps)); }

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
    // Every field goes through the one CSV writer, so a comma in a name or shape can never shift a column.
    out += csv_record({f.name, std::to_string(op.core), f.queue, engine_name(op.engine),
                       f.label.layer >= 0 ? std::to_string(f.label.layer) : "",
                       f.label.expert >= 0 ? std::to_string(f.label.expert) : "", f.phase, op_kind_name(op.kind),
                       ns(f.start_ps), ns(f.end_ps), ns(f.end_ps - f.start_ps), f.bound_by, critical[v] ? "1" : "0",
                       dtype_name(op.dtype), f.shape, dma ? std::to_string(f.bytes) : "", f.src, f.dst, f.dge,
                       dma ? fmt::format("{:.6g}", f.bytes_per_partition) : "", dma ? fmt::format("{:.3f}", f.achieved_gbps) : "",
                       std::to_string(isa_instructions(op))});
  }
  return out;
}

}  // namespace stasim
