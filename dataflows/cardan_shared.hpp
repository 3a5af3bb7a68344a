// The hybrid dataflow's shared, routing-independent projections on one core (docs/cardan.md): the partial
// z = Dᵀh over this core's rows of D, and the table T = h_blocksᵀ B of every code word's dot product with every
// block of h. Both land in SBUF in the layout the expert work reads.
#pragma once

#include <string>

#include "dataflows/decode_context.hpp"

namespace stasim {

// Weight-stationary: D [128 of H, 128 of r] stationary, h moving; output [r, T] (FP32), drained to SBUF.
OpId shared_z(DecodeContext& ctx, std::uint32_t core, std::uint32_t rows, OpId normed, OpId basis,
              const std::string& name);
// h reshaped to [d, H/d] stationary per 128 blocks, B [d, K] moving; drained to SBUF (GpSimd cannot read PSUM).
OpId shared_table(DecodeContext& ctx, std::uint32_t core, OpId normed, OpId codebook, const std::string& name);

}  // namespace stasim
