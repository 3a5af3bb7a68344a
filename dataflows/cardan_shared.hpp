// The hybrid dataflow's shared, routing-independent projections on one core (docs/cardan.md): z = Dᵀh for the
// columns of D this core holds (all of H: with H split the cores split r, see cardan_core.hpp), and the table
// T[b, k, t] = h_{b,t}ᵀ B_k of every code word with every block of h this core holds and every one of its
// tokens. z = Dᵀh is a projection of h like the dense kernel's gate/up and is built as that kernel builds them
// (weight-stationary, gate_up_projection_lhs_rhs_swap in nki-library): D's [128 of H, 128 of r] tiles stationary,
// h moving, so z lands as [r, T], the layout C_eᵀz reads, without a transpose. T is written [b, k, t]: the
// tokens of a block and code word are adjacent, so one index fetches the values of all the expert's tokens.
#pragma once

#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
#include "dataflows/psum_plan.hpp"

namespace stasim {

struct SharedShape {
  std::uint32_t rows = 0;    // rows of H (of h) this core's table and J_e cover
  std::uint32_t blocks = 0;  // rows / d: the blocks of h this core's table covers
  std::uint32_t tokens = 1;  // the core's tokens
  std::uint32_t z_rows = 0;  // rows of D and h in this core's z (all of H when the cores split r)
  std::uint32_t r = 0;       // columns of D (entries of z) this core computes
};

// z [r, T] (FP32, SBUF): per 128 of this core's r, D [128 of H, 128 of r] stationary and h [128 of H, T] moving,
// accumulated over s.z_rows of H; the r tiles share a PSUM bank (512 / T of them per bank), drained once per bank.
OpId shared_z(DecodeContext& ctx, std::uint32_t core, const SharedShape& s, OpId normed, OpId basis, PsumPlan& plan,
              const std::string& name);
// The element type T is kept in (SBUF) and gathered as: BF16, or FP32 with DataflowOptions::fp32_table.
inline Dtype table_dtype(const DataflowOptions& options) { return options.fp32_table ? Dtype::fp32 : Dtype::bf16; }
// T [b, k, t]: per 128 blocks and token, h_blocks [d, 128 blocks] stationary and B [d, K] moving; one PSUM bank
// holds 512 / K tokens' worth, drained (interleaved into [b, k, t], as table_dtype) to SBUF, where GpSimd reads it.
OpId shared_table(DecodeContext& ctx, std::uint32_t core, const SharedShape& s, OpId normed, OpId codebook,
                  PsumPlan& plan, const std::string& name);

}  // namespace stasim
