// The non-expert blocks of a decoder layer, each built per physical core of the rank: RMSNorm, the attention
// block (weights and KV cache by DMA, QKV projection, scores, softmax, PV, output projection), the Mamba-2
// mixer, the router (scores, softmax or sigmoid, top-k), and the block epilogue that sums the cores' partial
// outputs, runs the TP all-reduce and adds the residual. Kept simple, but with the right bytes.
#pragma once

#include <vector>

#include "dataflows/decode_context.hpp"

namespace stasim {

// RMSNorm of the hidden state on `core`: square-sum (ScalarE with reduce) then scale (VectorE).
OpId rms_norm(DecodeContext& ctx, std::uint32_t core, const Deps& deps, const char* phase, const std::string& name);

// Per-core partial outputs [T, H] (FP32 in SBUF) -> summed on core 0 -> TP all-reduce -> residual add on every
// core. Returns the ops after which each core has the next hidden state.
std::vector<OpId> finish_block(DecodeContext& ctx, const std::vector<OpId>& partial_ready, const std::string& block);

// Attention of `layer`; returns the per-core ops after which the hidden state is updated.
std::vector<OpId> attention_block(DecodeContext& ctx, std::int64_t layer);
std::vector<OpId> mamba_block(DecodeContext& ctx, std::int64_t layer);

// The router on every core: the ops after which each core knows the activated experts and their affinities.
// `fused_scores` (per core, when not empty): the scores came out of a fused projection; no router matmul.
// `load_deps` (per core): what its weight loads wait for (default: the static weights' prefetch point).
std::vector<OpId> router_block(DecodeContext& ctx, const std::vector<OpId>& normed,
                               const std::vector<OpId>& fused_scores = {}, const std::vector<Deps>& load_deps = {});

// Token embedding: one row per token gathered from HBM on every core.
std::vector<OpId> embedding(DecodeContext& ctx);
// Final norm and LM head (vocabulary split over ranks and cores), with double-buffered weight chunks.
void lm_head(DecodeContext& ctx);

}  // namespace stasim
