// The pieces of an expert's feed-forward in the row layout [T, I] on one physical core: the gate/up
// projections with the hidden state stationary and the weight streaming (the compiler-lowered MLPs: shared
// experts, dense layers, the xla baseline), the activation (φ on ScalarE, the product on VectorE, transposed to
// p [I, T] for the down projection), used also by the hybrid dataflow, whose VQ and LR parts produce rows.
#pragma once

#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
#include "dataflows/down_combiner.hpp"
#include "dataflows/weight_ring.hpp"

namespace stasim {

// Where a projection's output [T, I_c] is before φ: PSUM accumulators (one per 512 columns) or SBUF.
struct ProjectionOut {
  std::vector<Accumulator> accs;
  std::vector<OpId> ready;  // per 512-column tile: the last op producing it
  bool in_psum = true;
};

// Expert weights stream through a WeightRing in chunks: gate/up [H, <=512 columns] (one per output tile),
// down [<=512 rows of I, H].
constexpr std::uint32_t kDownRowsPerChunk = 512;

// Loads the [H, i_cols] gate or up weight of this core as one chunk per 512 output columns. `i_rank` is the
// width of the weight's rows in HBM (the rank's I), which sets the contiguous run of a column slice.
// `rows`: the rows of H this core holds (0 = all of H).
std::vector<OpId> load_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank,
                                  WeightRing& ring, const Deps& deps, const char* phase, const std::string& name,
                                  std::uint32_t rows = 0, DgeMode dge = DgeMode::static_);
// Loads the [i_cols, H] down weight as chunks of kDownRowsPerChunk whole rows.
std::vector<OpId> load_down(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, WeightRing& ring,
                            const Deps& deps, const char* phase, const std::string& name, DgeMode dge = DgeMode::static_);
// Bytes per partition of the largest chunk an expert of width i_cols streams.
std::uint64_t expert_chunk_bytes(const DecodeContext& ctx, std::uint32_t i_cols);

// Dense gate (or up) projection: the normalized hidden [128, T] stationary per 128-row tile, the weight chunk
// of each 512-column tile moving (docs/hardware-model.md MLP TKG tiling). Registers its reads with `ring`.
ProjectionOut dense_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const Deps& deps,
                               const std::vector<OpId>& chunks, WeightRing& ring, const char* phase,
                               const std::string& name, std::uint32_t tokens = 0, PsumPlan* psum = nullptr,
                               std::uint32_t rows = 0);

// φ(gate) ⊙ up (or φ(up) for a non-gated expert), drained from PSUM or read from SBUF, then transposed to
// p^T [I_c, T] in SBUF; `scale` multiplies by the affinity on the way (PSUM accumulation needs it before the
// down projection). Returns the op after which p^T is ready.
// `tokens` (here and below) is the free dimension of one expert's work, its token count; 0 = the batch.
// `layout` (when given) is the PSUM plan whose layout banks take the transposes.
OpId activation_product(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const ProjectionOut* gate,
                        const ProjectionOut& up, bool scale, const std::string& name, std::uint32_t tokens = 0,
                        PsumPlan* layout = nullptr);
// The down weight of `load_down` as the combiner reads it.
inline DownWeights down_weights(const std::vector<OpId>& loads, WeightRing& ring) {
  return DownWeights{loads, kDownRowsPerChunk, &ring};
}


}  // namespace stasim
