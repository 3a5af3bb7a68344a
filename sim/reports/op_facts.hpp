// What the reports say about one simulated op, computed once for the trace's slice args and the per-op table:
// where it ran, when, what bound its start, its shape and data, and the layer and expert its label names.
// Layer and expert come from the builders' label convention (dataflows/decode_step.cpp prefixes "L<layer>.",
// the MoE builders name an expert's ops "...e<expert>..."); ops outside a layer (embedding, LM head) and shared
// work have none (-1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct OpLabelParts {
  int layer = -1;
  int expert = -1;
};
// "L3.c0.e5.gate.matmul[2]" -> layer 3, expert 5; "head.c1.lm_head.mm[4]" -> none.
OpLabelParts parse_op_label(std::string_view name);

// "hbm", "sbuf", "psum" or "core<N>" for the SBUF of another physical core.
std::string location_text(Location location, std::uint8_t peer_core);

struct OpFacts {
  const Op* op = nullptr;
  std::string name;                  // the op's label
  std::string phase;                 // "" = untagged
  std::string queue;                 // "tensor", ..., "dma3" for DMA queue 3
  OpLabelParts label;
  Picoseconds start_ps = 0, end_ps = 0;
  std::string bound_by;              // "start", "dep:<op>", "queue:<op>", "psum:<op>"
  std::string shape;                 // "k128 m128 n512" (matmul), "p128 f64" (elementwise), "p128" (DMA)
  std::uint64_t bytes = 0;           // ops that move bytes (moves_bytes) only
  std::string src, dst;              // likewise
  std::string dge;                   // DMA transfers only: who generates the descriptors (static, hwdge, swdge)
  double bytes_per_partition = 0;    // ops that move bytes only
  double achieved_gbps = 0;          // likewise: bytes / (end - start); bytes per ns = GB/s
  bool critical = false;
};

OpFacts op_facts(const ScheduleGraph& graph, const SimResult& result, OpId v);
// Whether an op moves bytes and so has the DMA facts: a DMA transfer, or a sendrecv on GpSimd's own DMA (its
// descriptor mode stays empty: GpSimd drives that engine itself).
inline bool moves_bytes(const Op& op) { return op.engine == Engine::dma || op.kind == OpKind::sendrecv; }

}  // namespace stasim
