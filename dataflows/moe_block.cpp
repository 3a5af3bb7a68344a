#include "dataflows/moe_block.hpp"

#include <memory>
#include <optional>

#include "dataflows/expert_kernel.hpp"
#include "dataflows/kernel_boundary.hpp"
#include "dataflows/layer_blocks.hpp"
#include "dataflows/sbuf_budget.hpp"
#include "dataflows/surrounding_projections.hpp"

namespace stasim {

OpId dense_mlp(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank, OpId normed,
               const Deps& load_deps, DownCombiner& combiner, const std::string& name) {
  const char* phase = "dense_mlp";
  // All of the MLP's chunks in flight when they fit, else as many as its share of the static region allows.
  std::uint32_t chunks = static_cast<std::uint32_t>((ctx.model.gated ? 2 : 1) * ceil_div(i_cols, 512) + ceil_div(i_cols, kDownRowsPerChunk));
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, i_cols), chunks, kStaticShare);
  std::vector<OpId> gate_w, up_w;
  if (ctx.model.gated) gate_w = load_projection(ctx, core, i_cols, i_rank, ring, load_deps, phase, name + ".gate");
  up_w = load_projection(ctx, core, i_cols, i_rank, ring, load_deps, phase, name + ".up");
  std::vector<OpId> down_w = load_down(ctx, core, i_cols, ring, load_deps, phase, name);
  ProjectionOut gate;
  if (ctx.model.gated) gate = dense_projection(ctx, core, i_cols, {normed}, gate_w, ring, phase, name + ".gate");
  ProjectionOut up = dense_projection(ctx, core, i_cols, {normed}, up_w, ring, phase, name + ".up");
  OpId p_t = activation_product(ctx, core, i_cols, ctx.model.gated ? &gate : nullptr, up, false, name);
  DownInput d;
  d.i_cols = i_cols;
  d.tokens = ctx.tokens;
  d.p_ready = p_t;
  d.weights = down_weights(down_w, ring);
  combiner.add_expert(d, name);
  return combiner.last_matmul();
}

std::vector<OpId> moe_block(DecodeContext& ctx, std::int64_t layer, const RoutedExperts& routed) {
  (void)layer;
  const ModelSpec& m = ctx.model;
  const std::uint64_t shared = std::uint64_t(m.shared_experts) * m.shared_intermediate;
  const std::uint64_t shared_rank = ceil_div(shared, ctx.deployment.tp);
  const bool fuse = ctx.options.fuse_projections && shared > 0;
  // Unfused, the router and the shared experts run as compiler-lowered kernels of their own around the MoE
  // kernel (the fused MoE kernel takes no shared experts); without shared experts the router is part of it.
  const bool own_kernels = shared > 0 && !fuse;

  MoeInputs in;
  std::optional<KernelBoundary> boundary;
  if (own_kernels) boundary.emplace(ctx.b, ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) in.normed.push_back(rms_norm(ctx, c, {ctx.h_ready[c]}, "router", "moe.norm"));
  std::vector<OpId> fused_scores;
  std::vector<std::unique_ptr<FusedStream>> streams;
  if (fuse) {
    // Router scores and the shared experts' gate/up read the same normalized hidden: one wider projection,
    // the router's columns first, reduced before the rest so top-k waits only for them. Its weights are
    // static: prefetched.
    for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
      std::vector<std::uint32_t> widths{std::max<std::uint32_t>(1, ctx.share(static_cast<std::uint64_t>(m.experts), c))};
      std::uint32_t cols = ctx.share(shared_rank, c);
      if (m.gated) widths.push_back(cols);
      widths.push_back(cols);
      streams.push_back(std::make_unique<FusedStream>(ctx, c, widths, ctx.static_deps(c), "router", "moe.fused", true));
      streams[c]->compute(0, streams[c]->lead_tiles(), in.normed[c]);
      fused_scores.push_back(streams[c]->ready()[0].back());
    }
  }
  // Inside its own kernel the router loads its weights after the kernel starts; inside the MoE kernel they are
  // static and prefetched.
  std::vector<Deps> router_loads;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) router_loads.push_back(own_kernels ? Deps{ctx.h_ready[c]} : ctx.static_deps(c));
  in.topk = router_block(ctx, in.normed, fused_scores, router_loads);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) ctx.static_read(c, in.topk[c]);
  if (boundary) boundary->close();
  std::vector<std::vector<std::vector<OpId>>> fused(ctx.lnc);
  for (std::uint32_t c = 0; c < streams.size(); ++c) {
    streams[c]->compute(streams[c]->lead_tiles(), streams[c]->tiles(), in.normed[c]);
    fused[c] = streams[c]->ready();
  }

  // The always-on MLPs each sum into a combiner of their own, added to the routed experts' output at the end.
  std::vector<OpId> always_on(ctx.lnc, kNoOp);
  auto always_on_mlp = [&](std::uint32_t c, std::uint64_t rank_cols, const std::string& name, bool own_kernel) {
    std::uint32_t cols = ctx.share(rank_cols, c);
    if (cols == 0) return;
    DownCombiner combiner(ctx, c, name);
    Deps loads = own_kernel ? Deps{in.topk[c]} : ctx.static_deps(c);
    OpId read = dense_mlp(ctx, c, cols, rank_cols, in.normed[c], loads, combiner, name);
    if (!own_kernel) ctx.static_read(c, read);
    always_on[c] = combiner.finish();
  };
  if (own_kernels) {
    boundary.emplace(ctx.b, ctx.lnc);
    for (std::uint32_t c = 0; c < ctx.lnc; ++c) always_on_mlp(c, shared_rank, "shared", true);
    boundary->close();
  }
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    if (fuse) {
      std::uint32_t cols = ctx.share(shared_rank, c);
      if (cols > 0) {
        DownCombiner combiner(ctx, c, "shared");
        OpId read = fused_mlp_tail(ctx, c, cols, m.gated ? fused[c][1] : std::vector<OpId>{}, fused[c].back(),
                                   ctx.static_deps(c), combiner, "shared");
        ctx.static_read(c, read);
        always_on[c] = combiner.finish();
      }
    }
    if (m.parallel_dense_intermediate > 0)
      always_on_mlp(c, ceil_div(m.parallel_dense_intermediate, ctx.deployment.tp), "parallel_mlp", false);
  }

  // The routed experts: each core's output covers its share of H (H split) or its tokens (token split).
  if (own_kernels) boundary.emplace(ctx.b, ctx.lnc);
  std::vector<DownCombiner> combiners;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    bool split_h = ctx.experts.shard == ShardOn::hidden;
    std::uint32_t h_cols = split_h && ctx.lnc > 1 ? ctx.share(ctx.hidden, c) : ctx.hidden;
    std::uint32_t tokens = ctx.experts.cores.empty() ? ctx.tokens : ctx.experts.cores[c].tokens;
    combiners.emplace_back(ctx, c, "moe", h_cols, std::max<std::uint32_t>(tokens, 1));
  }
  routed(ctx, in, combiners);
  if (boundary) boundary->close();
  std::vector<OpId> partial(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    if (always_on[c] != kNoOp) combiners[c].add_partial(always_on[c]);
    partial[c] = combiners[c].finish();
  }
  return finish_block(ctx, partial, "moe");
}

std::vector<OpId> dense_mlp_block(DecodeContext& ctx, std::int64_t layer) {
  std::vector<OpId> partial(ctx.lnc);
  std::uint64_t i_rank = ceil_div(ctx.model.dense_mlp_intermediate(layer), ctx.deployment.tp);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    DownCombiner combiner(ctx, c, "mlp");
    OpId normed = rms_norm(ctx, c, {ctx.h_ready[c]}, "dense_mlp", "mlp.norm");
    std::uint32_t cols = ctx.share(i_rank, c);
    if (cols > 0 && ctx.options.fuse_projections) {
      // gate and up read the same normalized hidden: one [H, 2 x cols] projection (non-gated: nothing to fuse).
      std::vector<std::uint32_t> widths{cols};
      if (ctx.model.gated) widths.push_back(cols);
      FusedStream stream(ctx, c, widths, ctx.static_deps(c), "dense_mlp", "mlp.fused", false);
      stream.compute(0, stream.tiles(), normed);
      std::vector<std::vector<OpId>> f = stream.ready();
      ctx.static_read(c, fused_mlp_tail(ctx, c, cols, ctx.model.gated ? f[0] : std::vector<OpId>{}, f.back(),
                                        ctx.static_deps(c), combiner, "mlp"));
    } else if (cols > 0) {
      ctx.static_read(c, dense_mlp(ctx, c, cols, i_rank, normed, ctx.static_deps(c), combiner, "mlp"));
    }
    partial[c] = combiner.finish();
  }
  return finish_block(ctx, partial, "mlp");
}

}  // namespace stasim
