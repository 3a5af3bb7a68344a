// The pieces of one expert's feed-forward on one physical core, shared by every MoE dataflow: the dense
// gate/up projections, the activation (φ on ScalarE, the product on VectorE, transposed to [I, T] for the down
// projection), and DownCombiner, which runs the down projection under one of the four schedules of
// docs/cardan.md (weight- or activation-stationary x accumulate Σ a_e y_e in SBUF or in PSUM).
#pragma once

#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
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
std::vector<OpId> load_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank,
                                  WeightRing& ring, const Deps& deps, const char* phase, const std::string& name);
// Loads the [i_cols, H] down weight as chunks of kDownRowsPerChunk whole rows.
std::vector<OpId> load_down(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, WeightRing& ring,
                            const Deps& deps, const char* phase, const std::string& name);
// Bytes per partition of the largest chunk an expert of width i_cols streams.
std::uint64_t expert_chunk_bytes(const DecodeContext& ctx, std::uint32_t i_cols);

// Dense gate (or up) projection: the normalized hidden [128, T] stationary per 128-row tile, the weight chunk
// of each 512-column tile moving (hardware-facts.md §5 MLP TKG tiling). Registers its reads with `ring`.
ProjectionOut dense_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const Deps& deps,
                               const std::vector<OpId>& chunks, WeightRing& ring, const char* phase,
                               const std::string& name, std::uint32_t tokens = 0);

// φ(gate) ⊙ up (or φ(up) for a non-gated expert), drained from PSUM or read from SBUF, then transposed to
// p^T [I_c, T] in SBUF; `scale` multiplies by the affinity on the way (PSUM accumulation needs it before the
// down projection). Returns the op after which p^T is ready.
// `tokens` (here and below) is the free dimension of one expert's work, its padded token count; 0 = the batch.
OpId activation_product(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const ProjectionOut* gate,
                        const ProjectionOut& up, bool scale, const std::string& name, std::uint32_t tokens = 0);

class DownCombiner {
 public:
  DownCombiner(DecodeContext& ctx, std::uint32_t core, const std::string& block);
  // The down projection of one expert: p^T [i_cols, T] (ready after `p_t`) times W_down [i_cols, H] (loaded in
  // chunks of kDownRowsPerChunk rows by `down`), accumulated into the block output; reads are registered with
  // `ring`.
  // Its `tokens` columns are scattered into the batch's output (v4 free-dim .indirect, hardware-facts.md §3).
  void add_expert(std::uint32_t i_cols, OpId p_t, const std::vector<OpId>& down, WeightRing& ring, const std::string& name,
                  std::uint32_t tokens = 0);
  // Adds a partial output y [128, H/128 x T] (FP32, SBUF) that another path already summed (ready after `ready`).
  void add_partial(OpId ready) { partials_.push_back(ready); }
  // Completes the accumulation; returns the op after which y [128, H/128 x T] (FP32, SBUF) is final.
  OpId finish();
  // Whether add_expert wants p^T already scaled by the affinity.
  bool wants_scaled_input() const;

 private:
  std::vector<Accumulator> open_outputs(const std::string& name, std::uint32_t columns, bool long_lived);
  OpId convert_layout(const std::vector<OpId>& rows_ready, const std::string& name, std::uint32_t tokens);

  DecodeContext& ctx_;
  std::uint8_t core_;
  std::string block_;
  DownSchedule schedule_;
  OpId last_combine_ = kNoOp;           // SBUF accumulation: the running sum's last update
  std::vector<Accumulator> psum_sum_;   // PSUM accumulation: groups held across experts
  std::vector<OpId> psum_last_;
  std::uint32_t sum_tiles_per_bank_ = 1;  // weight-stationary PSUM sum: H tiles per bank
  bool any_ = false;
  std::vector<OpId> partials_;  // add_partial inputs, added in finish()
};

}  // namespace stasim
