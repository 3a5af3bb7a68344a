// The dense projections around the routed experts that read the MoE block's normalized hidden state: router
// scores, the shared experts' gate/up (docs/cardan.md "Surrounding-projection fusion"). Fused, they stream as
// one wider weight whose first tiles are the router's columns alone, so top-k waits only for those; unfused,
// each runs as its own kernel (KernelBoundary) with its weights loaded inside it.
#pragma once

#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
#include "dataflows/down_combiner.hpp"

namespace stasim {

// Per segment (in `widths` order), per 512-column tile of the segment: the op after which its columns are in
// SBUF. `lead_alone`: the first segment's columns (the router's scores) get tiles of their own.
std::vector<std::vector<OpId>> fused_projection(DecodeContext& ctx, std::uint32_t core,
                                                const std::vector<std::uint32_t>& widths, OpId normed,
                                                const Deps& load_deps, const char* phase, const std::string& name,
                                                bool lead_alone);

// A gated or non-gated dense MLP whose gate/up came out of a fused projection; only its down weights load here
// (after `load_deps`). Adds y to `combiner`; returns the op after which its weights were last read.
OpId fused_mlp_tail(DecodeContext& ctx, std::uint32_t core, std::uint32_t cols, const std::vector<OpId>& gate_ready,
                    const std::vector<OpId>& up_ready, const Deps& load_deps, DownCombiner& combiner,
                    const std::string& name);

}  // namespace stasim
