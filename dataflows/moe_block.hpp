// The MoE block of a layer, common to every dataflow: RMSNorm, router, the always-on MLPs (shared experts,
// Gemma 4's parallel dense MLP), the dataflow's routed-expert work on every physical core, and the epilogue
// (cross-core sum, TP all-reduce, residual). With shared experts and no projection fusion the router and the
// shared experts are kernels of their own (KernelBoundary). Also the dense-MLP block of a dense layer.
#pragma once

#include <functional>
#include <vector>

#include "dataflows/expert_ffn.hpp"
#include "dataflows/down_combiner.hpp"

namespace stasim {

struct MoeInputs {
  std::vector<OpId> normed;  // per core: the normalized hidden state is ready
  std::vector<OpId> topk;    // per core: activated experts and affinities are known
};

// The routed experts of one dataflow on every core of the rank, accumulating into each core's combiner. It
// sees all cores at once because some steps exchange data between them (cardan's partial z).
using RoutedExperts = std::function<void(DecodeContext&, const MoeInputs&, std::vector<DownCombiner>&)>;

std::vector<OpId> moe_block(DecodeContext& ctx, std::int64_t layer, const RoutedExperts& routed);
std::vector<OpId> dense_mlp_block(DecodeContext& ctx, std::int64_t layer);

// A dense (BF16) MLP with intermediate `i_cols` on `core` (the rank's `i_rank` split over the cores, as the
// compiler lowers it), its weights loaded after `load_deps`; adds y to `combiner`. Returns its weights' last
// reader.
OpId dense_mlp(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank, OpId normed,
               const Deps& load_deps, DownCombiner& combiner, const std::string& name);

// The dense megakernel's routed experts: nki-library's selective-expert loop (dense_moe.cpp).
void dense_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners);
// The hybrid LR+VQ dataflow of docs/cardan.md, every mechanism switchable through DataflowOptions.
void cardan_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners);
// The compiler-lowered baseline: one kernel per op, intermediates through HBM, nothing prefetched across routing.
void xla_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners);
// W4A8: MXFP4 gate/up on the MX matmul, each activated expert's packed output converted before the BF16 down.
void w4a8_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners);
void w4a8_fused_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners);

}  // namespace stasim
