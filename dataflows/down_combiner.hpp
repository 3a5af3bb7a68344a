// DownCombiner: the down projection of every expert of a block on one core and the sum Σ a_e y_e, under one of
// the four schedules of docs/cardan.md:
// - weight-stationary (nki-library mlp_tkg down_projection_lhs_rhs_swap): W_down [128 of I, 128 of H]
//   stationary, p [128 of I, T] moving: H/128 x I/128 skinny matmuls whose output [128 of H, T] is already in
//   the layout of the sum (512 / T H-tiles per PSUM bank);
// - activation-stationary (mlp_tkg down_projection): p [128 of I, T] stationary, W_down [128 of I, 512 of H]
//   moving: I/128 x H/512 wide matmuls whose output rows [T, H] need a layout conversion (TensorE transposes);
// - accumulate in SBUF (drain each y_e, scale by a_e, add: PSUM freed at once) or in PSUM (p pre-scaled by a_e,
//   a running sum held across the expert loop in banks taken out of the gate/up pool, drained once).
// The combiner owns its core's PsumPlan so the running sum's banks are reserved before any expert starts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
#include "dataflows/psum_plan.hpp"
#include "dataflows/weight_ring.hpp"

namespace stasim {

// The down weight of one expert on this core as loaded: one DMA per `rows_per_load` rows of I.
struct DownWeights {
  std::vector<OpId> loads;
  std::uint32_t rows_per_load = 512;
  WeightRing* ring = nullptr;  // registers the reads (frees the slots)
};

// One expert's down input on this core.
struct DownInput {
  std::uint32_t i_cols = 0;   // contraction (the I this core holds)
  std::uint32_t tokens = 1;   // T_e, the moving (or stationary) free size
  std::uint32_t token_offset = 0;  // its first column in the core's output (a (token, expert) route)
  OpId p_ready = kNoOp;       // p [128 of I, I/128 x T_e] (BF16, SBUF; scaled by a_e when wants_scaled_input())
  DownWeights weights;
};

class DownCombiner {
 public:
  // `h_cols`: output columns of this core (H, or its share of H when the cores split H); `tokens`: the columns
  // of its output (the core's tokens).
  DownCombiner(DecodeContext& ctx, std::uint32_t core, const std::string& block, std::uint32_t h_cols = 0,
               std::uint32_t tokens = 0);

  // The per-role PSUM plan of the expert loop (created on first call with `extra` roles, e.g. the hybrid's
  // table); without one the combiner rotates banks (compiler-lowered blocks).
  PsumPlan& plan(const PsumRoles& extra = {});
  bool has_plan() const { return plan_ != nullptr; }

  void add_expert(const DownInput& in, const std::string& name);
  // Adds a partial output y [128, H/128 x T] (FP32, SBUF) that another path already summed (ready after `ready`).
  void add_partial(OpId ready) { partials_.push_back(ready); }
  // Completes the accumulation; returns the op after which y [128, H/128 x T] (FP32, SBUF) is final.
  OpId finish();
  // Whether add_expert wants p already scaled by the affinity (the PSUM running sum).
  bool wants_scaled_input() const { return schedule_.accumulate == Accumulate::psum; }
  std::uint32_t h_cols() const { return h_cols_; }
  // The last down matmul emitted (the last reader of the weights added so far).
  OpId last_matmul() const { return last_matmul_; }

 private:
  Accumulator open(PsumRole role, const std::string& name);
  Accumulator open_at(PsumRole role, std::uint32_t index, const std::string& name);
  std::uint32_t h_tiles() const { return static_cast<std::uint32_t>(ceil_div(h_cols_, 128)); }
  std::uint32_t running_sum_banks() const;
  void weight_stationary(const DownInput& in, const std::string& name, std::vector<OpId>& readers);
  void activation_stationary(const DownInput& in, const std::string& name, std::vector<OpId>& readers);
  // Rows [T, H_c] in SBUF (ready after `rows`) to [128, H_c/128 x T]: TensorE transposes, then `combine`.
  OpId convert_layout(const Deps& rows, const std::string& name, std::uint32_t tokens);
  OpId scale_add(OpId from_psum, const Accumulator* acc, std::uint32_t free, std::uint32_t partitions,
                 const std::string& name);

  DecodeContext& ctx_;
  std::uint8_t core_;
  std::string block_;
  DownSchedule schedule_;
  std::uint32_t h_cols_;
  std::uint32_t tokens_;
  std::unique_ptr<PsumPlan> plan_;
  OpId last_combine_ = kNoOp;          // SBUF accumulation: the running sum's last update
  OpId last_matmul_ = kNoOp;
  std::vector<Accumulator> psum_sum_;  // PSUM accumulation: groups held across experts
  std::vector<OpId> psum_last_;
  bool any_ = false;
  std::vector<OpId> partials_;
};

}  // namespace stasim
