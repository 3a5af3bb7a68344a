#include "dataflows/moe_block.hpp"

#include "dataflows/layer_blocks.hpp"

namespace stasim {

void dense_routed_experts_on(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner);

void dense_mlp(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank, OpId normed,
               DownCombiner& combiner, const std::string& name) {
  const char* phase = "dense_mlp";
  Deps start{ctx.h_ready[core]};
  // All of the MLP's chunks in flight when they fit, else as many as the SBUF budget allows.
  std::uint32_t chunks = static_cast<std::uint32_t>((ctx.model.gated ? 2 : 1) * ceil_div(i_cols, 512) + ceil_div(i_cols, kDownRowsPerChunk));
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, i_cols), chunks, 0.3);
  std::vector<OpId> gate_w, up_w;
  if (ctx.model.gated) gate_w = load_projection(ctx, core, i_cols, i_rank, ring, start, phase, name + ".gate");
  up_w = load_projection(ctx, core, i_cols, i_rank, ring, start, phase, name + ".up");
  std::vector<OpId> down_w = load_down(ctx, core, i_cols, ring, start, phase, name);
  ProjectionOut gate;
  if (ctx.model.gated) gate = dense_projection(ctx, core, i_cols, {normed}, gate_w, ring, phase, name + ".gate");
  ProjectionOut up = dense_projection(ctx, core, i_cols, {normed}, up_w, ring, phase, name + ".up");
  OpId p_t = activation_product(ctx, core, i_cols, ctx.model.gated ? &gate : nullptr, up, false, name);
  combiner.add_expert(i_cols, p_t, down_w, ring, name);
}

namespace {

// Segments of one fused weight [H, Σ widths] streamed as 512-column tiles through one chain of matmuls per
// tile, drained to SBUF. Returns, per segment and per 512-column tile of that segment, the drain after which
// it is in SBUF (the vector queue drains in order, so the last overlapping tile's drain covers it).
std::vector<std::vector<OpId>> fused_projection(DecodeContext& ctx, std::uint32_t core, const std::vector<std::uint32_t>& widths,
                                                OpId normed, const Deps& load_deps, const char* phase, const std::string& name) {
  std::uint32_t total = 0;
  for (std::uint32_t w : widths) total += w;
  std::uint32_t tiles = static_cast<std::uint32_t>(ceil_div(total, 512));
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, total), tiles, 0.3);
  std::vector<OpId> chunks = load_projection(ctx, core, total, std::uint64_t(total) * ctx.lnc, ring, load_deps, phase, name);
  ProjectionOut out = dense_projection(ctx, core, total, {normed}, chunks, ring, phase, name);
  std::vector<OpId> drains;
  for (std::uint32_t nt = 0; nt < tiles; ++nt)
    drains.push_back(ctx.b.compute(Engine::vector, OpKind::tensor_copy, static_cast<std::uint8_t>(core),
                                   std::min<std::uint32_t>(512, total - nt * 512), ctx.tokens, {out.ready[nt]}, phase,
                                   label(core, name + ".drain[" + std::to_string(nt) + "]"), true, &out.accs[nt]));
  std::vector<std::vector<OpId>> ready;
  std::uint32_t begin = 0;
  for (std::uint32_t w : widths) {
    std::vector<OpId> seg;
    for (std::uint32_t t = 0; t < ceil_div(w, 512); ++t) {
      std::uint32_t last_col = begin + std::min(w, (t + 1) * 512) - 1;
      seg.push_back(drains[last_col / 512]);
    }
    ready.push_back(seg);
    begin += w;
  }
  return ready;
}

// A gated or non-gated dense MLP whose gate/up came out of a fused projection (in SBUF, tiles ready after
// `gate_ready` / `up_ready`); only its down weights are loaded here.
void fused_mlp_tail(DecodeContext& ctx, std::uint32_t core, std::uint32_t cols, const std::vector<OpId>& gate_ready,
                    const std::vector<OpId>& up_ready, DownCombiner& combiner, const std::string& name) {
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, cols), static_cast<std::uint32_t>(ceil_div(cols, kDownRowsPerChunk)), 0.3);
  std::vector<OpId> down_w = load_down(ctx, core, cols, ring, {ctx.h_ready[core]}, "dense_mlp", name);
  ProjectionOut gate, up;
  gate.in_psum = up.in_psum = false;
  gate.ready = gate_ready;
  up.ready = up_ready;
  OpId p_t = activation_product(ctx, core, cols, ctx.model.gated ? &gate : nullptr, up, false, name);
  combiner.add_expert(cols, p_t, down_w, ring, name);
}

}  // namespace

std::vector<OpId> moe_block(DecodeContext& ctx, std::int64_t layer, const RoutedExperts& routed) {
  const ModelSpec& m = ctx.model;
  MoeInputs in;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) in.normed.push_back(rms_norm(ctx, c, {ctx.h_ready[c]}, "router", "moe.norm"));
  std::uint64_t shared = std::uint64_t(m.shared_experts) * m.shared_intermediate;
  std::uint64_t shared_rank = ceil_div(shared, ctx.deployment.tp);
  bool fuse = ctx.options.fuse_projections && shared > 0;
  std::vector<OpId> fused_scores;
  std::vector<std::vector<std::vector<OpId>>> fused(ctx.lnc);
  if (fuse) {
    // Router scores and the shared experts' gate/up read the same normalized hidden: one wider projection.
    for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
      std::vector<std::uint32_t> widths{std::max<std::uint32_t>(1, ctx.share(static_cast<std::uint64_t>(m.experts), c))};
      std::uint32_t cols = ctx.share(shared_rank, c);
      if (m.gated) widths.push_back(cols);
      widths.push_back(cols);
      fused[c] = fused_projection(ctx, c, widths, in.normed[c], {ctx.h_ready[c]}, "router", "moe.fused");
      fused_scores.push_back(fused[c][0].back());
    }
  }
  in.topk = router_block(ctx, in.normed, fused_scores);
  std::vector<OpId> partial(ctx.lnc);
  std::vector<DownCombiner> combiners;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) combiners.emplace_back(ctx, c, "moe");
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    DownCombiner& combiner = combiners[c];
    if (fuse) {
      std::uint32_t cols = ctx.share(shared_rank, c);
      if (cols > 0)
        fused_mlp_tail(ctx, c, cols, m.gated ? fused[c][1] : std::vector<OpId>{}, fused[c].back(), combiner, "shared");
    } else if (shared > 0) {
      std::uint64_t rank_cols = ceil_div(shared, ctx.deployment.tp);
      std::uint32_t cols = ctx.share(rank_cols, c);
      if (cols > 0) dense_mlp(ctx, c, cols, rank_cols, in.normed[c], combiner, "shared");
    }
    if (m.parallel_dense_intermediate > 0) {
      std::uint64_t rank_cols = ceil_div(m.parallel_dense_intermediate, ctx.deployment.tp);
      std::uint32_t cols = ctx.share(rank_cols, c);
      if (cols > 0) dense_mlp(ctx, c, cols, rank_cols, in.normed[c], combiner, "parallel_mlp");
    }
  }
  routed(ctx, in, combiners);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) partial[c] = combiners[c].finish();
  (void)layer;
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
      std::vector<std::vector<OpId>> f = fused_projection(ctx, c, widths, normed, {ctx.h_ready[c]}, "dense_mlp", "mlp.fused");
      fused_mlp_tail(ctx, c, cols, ctx.model.gated ? f[0] : std::vector<OpId>{}, f.back(), combiner, "mlp");
    } else if (cols > 0) {
      dense_mlp(ctx, c, cols, i_rank, normed, combiner, "mlp");
    }
    partial[c] = combiner.finish();
  }
  return finish_block(ctx, partial, "mlp");
}

void dense_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  for (std::uint32_t core = 0; core < ctx.lnc; ++core) dense_routed_experts_on(ctx, core, in, combiners[core]);
}

void dense_routed_experts_on(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner) {
  const ModelSpec& m = ctx.model;
  std::uint64_t i_rank = m.intermediate_per_rank(ctx.deployment.tp);
  std::uint32_t i_cols = ctx.share(i_rank, core);
  if (i_cols == 0) return;
  const std::vector<ExpertGroup>& experts = ctx.experts.groups;
  std::uint32_t count = ctx.experts.size();
  // Expert addresses are known once the router's top-k is; each expert of the step (the union of the batch's
  // choices) is loaded once, through a ring holding `weight_buffers` experts (2 = double buffering; 0 = all
  // activated experts), cut to the SBUF budget.
  std::uint32_t per_expert = static_cast<std::uint32_t>((m.gated ? 2 : 1) * ceil_div(i_cols, 512) + ceil_div(i_cols, kDownRowsPerChunk));
  std::uint32_t experts_in_flight = ctx.options.weight_buffers == 0 ? count : std::min(ctx.options.weight_buffers, count);
  WeightRing ring(ctx, core, "experts.w", expert_chunk_bytes(ctx, i_cols), experts_in_flight * per_expert, 0.6);
  bool scale = combiner.wants_scaled_input();
  Deps start{in.topk[core]};
  for (std::uint32_t e = 0; e < count; ++e) {
    std::string name = "e" + std::to_string(e);
    std::uint32_t T = experts[e].padded_tokens;
    std::vector<OpId> gate_w, up_w;
    if (m.gated) gate_w = load_projection(ctx, core, i_cols, i_rank, ring, start, "gate_up", name + ".gate");
    up_w = load_projection(ctx, core, i_cols, i_rank, ring, start, "gate_up", name + ".up");
    std::vector<OpId> down_w = load_down(ctx, core, i_cols, ring, start, "down", name);
    ProjectionOut gate;
    if (m.gated) gate = dense_projection(ctx, core, i_cols, {in.normed[core]}, gate_w, ring, "gate_up", name + ".gate", T);
    ProjectionOut up = dense_projection(ctx, core, i_cols, {in.normed[core]}, up_w, ring, "gate_up", name + ".up", T);
    OpId p_t = activation_product(ctx, core, i_cols, m.gated ? &gate : nullptr, up, scale, name, T);
    combiner.add_expert(i_cols, p_t, down_w, ring, name, T);
  }
}

}  // namespace stasim
