// One expert's feed-forward on one physical core as nki-library's MoE decode kernel builds it
// (core/moe/moe_tkg/selective_expert_impl.py over core/mlp/mlp_tkg with column tiling off, i.e. "LHS/RHS
// swapped"): gate/up with the weight [128 of H, 128 of I] stationary and the hidden [128, T] moving, output
// [128 of I, I/128, T] drained to SBUF in FP32; when the cores split H, the partial gate and up sums are
// exchanged (sendrecv) and added; φ on ScalarE and the product on VectorE leave p in the layout the down
// projection reads, with no transpose. The down projection is the DownCombiner's.
#pragma once

#include <string>
#include <vector>

#include "dataflows/down_combiner.hpp"
#include "dataflows/expert_groups.hpp"

namespace stasim {

struct ExpertSlice {
  std::uint32_t h_rows = 0;  // gate/up contraction rows on this core (H / lnc when the cores split H)
  std::uint32_t h_cols = 0;  // down output columns on this core
  std::uint32_t i_cols = 0;  // the rank's I: both shardings keep the whole I on every core
  bool partial = false;      // gate/up are partial sums over h_rows, exchanged between the cores
};
ExpertSlice expert_slice(const DecodeContext& ctx, ShardOn shard);

// gate and up of one I shard (at most the gate/up PSUM pool's banks of 128 columns, mlp_tkg's
// max_I_shard_size) on this core, as tiles in SBUF (FP32): per 128 columns of the shard, the op after which
// the tile holds its sum.
struct GateUpTiles {
  std::uint32_t first_col = 0, cols = 0;  // the shard's columns of I
  std::vector<OpId> gate, up;             // gate empty for a non-gated model
};

// The expert's weights on this core, loaded right after routing through `ring`.
struct ExpertLoads {
  std::vector<std::vector<OpId>> gate_up;  // per I shard, per HTile of rows: the fused [rows, 2, cols] view
  DownWeights down;                        // [128 rows of I, h_cols] per DMA
};

// The shards of I the gate/up pool covers at once: `tiles` columns of 128 each (gate and up both open).
std::uint32_t gate_up_shard_tiles(const ExpertSlice& slice, const PsumPlan& plan, bool gated);
// Rows of H per gate/up DMA: mlp_tkg's HTile (2048, else 512, else 128) so that two experts' tiles fit `ring`.
std::uint32_t gate_up_rows_per_load(const ExpertSlice& slice, std::uint32_t shard_cols, bool gated, std::uint64_t budget);
// Bytes per partition of the largest weight tile an expert streams (the ring's slot).
std::uint64_t expert_tile_bytes(const ExpertSlice& slice, std::uint32_t rows_per_load, std::uint32_t shard_cols, bool gated);

ExpertLoads load_expert(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, std::uint32_t shard_tiles,
                        std::uint32_t rows_per_load, WeightRing& ring, const Deps& deps, const std::string& name);

// The down weight [i_cols, h_cols] of this core as [128 rows of I, h_cols] tiles, one DMA each
// (down_projection_lhs_rhs_swap).
DownWeights load_down_tiles(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint32_t h_cols,
                            WeightRing& ring, const Deps& deps, const std::string& name);

// The gate/up matmuls of every shard, drained to SBUF; the hidden [128, H/128 x T] is ready after `hidden`.
std::vector<GateUpTiles> gate_up_tiles(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, std::uint32_t T,
                                       OpId hidden, const ExpertLoads& loads, std::uint32_t shard_tiles,
                                       WeightRing& ring, PsumPlan& plan, const std::string& name);

// H split: every core sends its partial gate, then up, to the other cores and adds theirs (mlp_tkg
// process_gate_up_projection: one sendrecv and one add per projection; the receive buffer is reused, so the up
// exchange waits for the gate add). `tiles[c]` are core c's; they become the summed tiles.
void exchange_partials(DecodeContext& ctx, std::vector<std::vector<GateUpTiles>>& tiles, std::uint32_t T,
                       const std::string& name);

// φ(gate) ⊙ up into p [128 of I, I/128 x T] (BF16); multiplied by a_e when `scale` (the PSUM running sum).
OpId gate_up_product(DecodeContext& ctx, std::uint32_t core, const std::vector<GateUpTiles>& tiles, std::uint32_t T,
                     bool scale, const std::string& name);

}  // namespace stasim
