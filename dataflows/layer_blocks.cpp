#include "dataflows/layer_blocks.hpp"

#include <algorithm>

#include "dataflows/sbuf_budget.hpp"
#include "dataflows/weight_ring.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;  // FP32 columns of one PSUM bank per partition (2 KiB)

// x[T, K] (hidden-stationary, K on partitions in tiles of 128) times a weight W[K, N] (row-major in HBM, rows
// `row_elems` wide) streamed through `ring` in [K, <=512]-column chunks as the moving operand; one accumulation
// group per chunk, drained to SBUF by `drain` (a copy unless told otherwise). Returns the drains.
std::vector<OpId> streamed_projection(DecodeContext& ctx, std::uint32_t core, std::uint64_t k_dim, std::uint64_t n_dim,
                                      std::uint64_t row_elems, const Deps& deps, const Deps& load_deps, WeightRing& ring,
                                      const char* phase, const std::string& name, Dtype dtype = Dtype::bf16,
                                      OpKind drain = OpKind::tensor_copy) {
  KernelBuilder& b = ctx.b;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t elem = dtype == Dtype::fp32 ? 4 : 2;
  std::vector<OpId> drains;
  std::uint64_t k_tiles = ceil_div(k_dim, 128), n_tiles = ceil_div(n_dim, kBankColumns);
  for (std::uint64_t nt = 0; nt < n_tiles; ++nt) {
    std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBankColumns, n_dim - nt * kBankColumns));
    OpId w = ring.load(k_dim * n * elem, 128, ctx.column_run(std::uint64_t(n) * elem, row_elems * elem), load_deps, phase,
                       label(core, idx(name + ".load_w", nt)));
    Accumulator acc = b.open_accumulator(c, label(core, idx(name + ".acc", nt)));
    OpId last = kNoOp;
    Deps d;
    d.reserve(deps.size() + 1);
    d.insert(d.end(), deps.begin(), deps.end());
    d.push_back(w);
    for (std::uint64_t kt = 0; kt < k_tiles; ++kt) {
      std::uint32_t k = static_cast<std::uint32_t>(std::min<std::uint64_t>(128, k_dim - kt * 128));
      last = b.matmul(c, k, ctx.tokens, n, true, acc, kt == 0 ? d : Deps{}, phase,
                      label(core, idx(name + ".mm", nt * k_tiles + kt)), dtype);
    }
    ring.read_by(w, last);
    drains.push_back(b.compute(Engine::vector, drain, c, n, ctx.tokens, {last}, phase, label(core, idx(name + ".drain", nt)),
                               true, &acc, drain == OpKind::tensor_copy ? Dtype::bf16 : Dtype::fp32));
  }
  return drains;
}

// Bytes per partition of one streamed chunk of a [k_dim, min(n_dim, 512)] weight.
std::uint64_t chunk_bytes(std::uint64_t k_dim, std::uint64_t n_dim = kBankColumns, std::uint32_t elem = 2) {
  return ceil_div(k_dim * std::min<std::uint64_t>(n_dim, kBankColumns) * elem, 128);
}

}  // namespace

OpId rms_norm(DecodeContext& ctx, std::uint32_t core, const Deps& deps, const char* phase, const std::string& name) {
  std::uint32_t free = ctx.h_tiles * ctx.tokens;
  OpId sq = ctx.b.compute(Engine::scalar, OpKind::activation_reduce, core, free, 128, deps, phase,
                          label(core, name + ".sumsq"));
  return ctx.b.compute(Engine::vector, OpKind::tensor_scalar, core, free, 128, {sq}, phase, label(core, name + ".scale"));
}

std::vector<OpId> finish_block(DecodeContext& ctx, const std::vector<OpId>& partial, const std::string& block) {
  KernelBuilder& b = ctx.b;
  std::uint32_t free = ctx.h_tiles * ctx.tokens;
  // Sum the cores' partial outputs on core 0 over the cross-core link (FP32 partials).
  OpId summed = partial[0];
  for (std::uint32_t c = 1; c < ctx.lnc; ++c) {
    OpId send = ctx.exchange(c, std::uint64_t(ctx.hidden) * ctx.tokens * 4, 128, 0, {partial[c]}, {partial[0]}, "combine",
                             label(c, block + ".to_core0"));
    summed = b.compute(Engine::vector, OpKind::tensor_tensor, 0, free, 128, {summed, send}, "combine",
                       label(0, block + ".sum_core" + std::to_string(c)), false, nullptr, Dtype::fp32);
  }
  // The all-reduce works on device memory, between two kernels (a kernel's inputs and outputs are HBM tensors;
  // NxDI runs the TP all-reduce as a collective between the block's kernel and the next): the summed block
  // output goes to HBM, and every core loads the reduced vector back into SBUF before its residual add.
  OpId stored = b.dma(0, ctx.hidden_bytes(), 128, Location::sbuf, Location::hbm, {summed}, "collective",
                      label(0, block + ".to_hbm"));
  OpId reduced = b.all_reduce(0, ctx.hidden_bytes(), {stored}, "collective", label(0, block + ".all_reduce"));
  std::vector<OpId> ready(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    const std::uint8_t core = static_cast<std::uint8_t>(c);
    OpId loaded = b.dma(core, ctx.hidden_bytes(), 128, Location::hbm, Location::sbuf, {reduced}, "collective",
                        label(c, block + ".from_hbm"));
    ready[c] = b.compute(Engine::vector, OpKind::tensor_tensor, core, free, 128, {loaded}, "combine",
                         label(c, block + ".residual"));
  }
  return ready;
}

std::vector<OpId> attention_block(DecodeContext& ctx, std::int64_t layer) {
  KernelBuilder& b = ctx.b;
  const ModelSpec& m = ctx.model;
  const AttentionSpec& a = m.attention;
  const char* phase = "attention";
  const std::int64_t tp = ctx.deployment.tp;
  bool mla = a.kind == AttentionKind::mla;
  bool global = m.is_global_attention(layer);
  std::int64_t head_dim = global && a.global_head_dim > 0 ? a.global_head_dim : a.head_dim;
  std::int64_t kv_heads = global && a.global_kv_heads > 0 ? a.global_kv_heads : a.kv_heads;
  // Score contraction and value width: per head for GQA/MHA; MLA attends in the compressed latent (absorbed form).
  std::uint64_t qk_dim = mla ? a.kv_lora_rank + a.qk_rope_head_dim : head_dim;
  std::uint64_t v_dim = mla ? a.kv_lora_rank : head_dim;
  std::uint64_t o_in_dim = mla ? a.v_head_dim : head_dim;
  std::uint64_t q_heads_rank = ceil_div(a.q_heads, tp);
  std::uint64_t kv_rank = mla ? 1 : ceil_div(kv_heads, tp);
  std::uint64_t tokens = m.attended_tokens(layer, ctx.deployment.context_tokens);
  std::uint64_t weight_bytes_rank = m.attention_weight_bytes(layer, ctx.deployment);
  std::uint64_t kv_bytes_rank = m.kv_cache_bytes_per_token(layer, ctx.deployment) * tokens;
  std::vector<OpId> partial(ctx.lnc);

  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    std::uint8_t core = static_cast<std::uint8_t>(c);
    std::uint64_t q_heads = ctx.share(q_heads_rank, c);
    // KV heads are split over the cores when there are enough; otherwise each core reads the rank's cache.
    std::uint64_t kv_groups = kv_rank >= ctx.lnc ? ctx.share(kv_rank, c) : 1;
    std::uint64_t kv_bytes = kv_rank >= ctx.lnc ? kv_bytes_rank * kv_groups / kv_rank : kv_bytes_rank;
    std::uint64_t weight_bytes = weight_bytes_rank / ctx.lnc;
    std::uint64_t o_params = q_heads * o_in_dim * ctx.hidden;
    std::uint64_t qkv_cols = std::max<std::uint64_t>(1, (weight_bytes / 2 > o_params ? weight_bytes / 2 - o_params : 0) / ctx.hidden);
    std::uint64_t group = std::max<std::uint64_t>(1, ceil_div(std::max<std::uint64_t>(q_heads, 1), kv_groups));

    OpId norm = rms_norm(ctx, c, {ctx.h_ready[c]}, phase, "attn.norm");
    // Weights stream through a ring of [rows, 512]-column chunks: W_qkv [H, qkv], W_o [q_heads x o_in_dim, H],
    // all resident when the static region holds them. Static: issued before the layer input when prefetched.
    Deps statics = ctx.static_deps(c);
    std::uint32_t weight_chunks = static_cast<std::uint32_t>(ceil_div(qkv_cols, kBankColumns) + ceil_div(ctx.hidden, kBankColumns));
    WeightRing ring(ctx, c, "attn.w", std::max(chunk_bytes(ctx.hidden), chunk_bytes(std::max<std::uint64_t>(q_heads * o_in_dim, 1))),
                    weight_chunks, kStaticShare);
    std::uint32_t kv_buf = b.buffer(core, label(c, "attn.kv"), ceil_div(std::max<std::uint64_t>(kv_bytes, 1), 128));
    std::vector<OpId> kv_loads;
    for (int part = 0; part < (mla ? 1 : 2); ++part) {
      OpId l = b.dma(core, std::max<std::uint64_t>(kv_bytes / (mla ? 1 : 2), 1), 128, Location::hbm, Location::sbuf,
                     statics, phase, label(c, part == 0 ? "attn.load_k" : "attn.load_v"));
      b.use(l, kv_buf);
      kv_loads.push_back(l);
    }
    std::vector<OpId> qkv = streamed_projection(ctx, core, ctx.hidden, qkv_cols, qkv_cols * ctx.lnc, {norm},
                                                statics, ring, phase, "attn.qkv");
    OpId rope = b.compute(Engine::vector, OpKind::tensor_tensor, core, static_cast<std::uint32_t>(qkv_cols),
                          ctx.tokens, qkv, phase, label(c, "attn.rope"));
    // The new token's keys and values go back to the cache.
    b.dma(core, std::max<std::uint64_t>(m.kv_cache_bytes_per_token(layer, ctx.deployment) * ctx.tokens / ctx.lnc, 1),
          ctx.tokens, Location::sbuf, Location::hbm, {rope}, phase, label(c, "attn.store_kv"));

    std::vector<OpId> head_outputs;
    std::uint64_t chunks = ceil_div(std::max<std::uint64_t>(tokens, 1), 128);
    std::uint64_t qk_tiles = ceil_div(qk_dim, 128);
    for (std::uint64_t g = 0; g < kv_groups && q_heads > 0; ++g) {
      std::string grp = "attn.kv" + std::to_string(g);
      std::uint32_t n_q = static_cast<std::uint32_t>(std::min<std::uint64_t>(group * ctx.tokens, 512));
      // Scores transposed, [128 tokens, heads x T] per chunk: K^T chunk stationary, the group's queries moving.
      std::vector<Accumulator> score_accs;
      std::uint64_t chunks_per_bank = std::max<std::uint64_t>(1, kBankColumns / n_q);
      std::vector<OpId> exps;
      for (std::uint64_t ch = 0; ch < chunks; ch += chunks_per_bank) {
        std::uint64_t end = std::min(chunks, ch + chunks_per_bank);
        Accumulator acc = b.open_accumulator(core, label(c, idx(grp + ".scores", ch)));
        OpId last = kNoOp;
        for (std::uint64_t t = ch; t < end; ++t)
          for (std::uint64_t kt = 0; kt < qk_tiles; ++kt) {
            std::uint32_t k = static_cast<std::uint32_t>(std::min<std::uint64_t>(128, qk_dim - kt * 128));
            std::uint32_t rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(128, tokens - t * 128));
            Deps d{rope, kv_loads[0]};
            last = b.matmul(core, k, rows, n_q, true, acc, d, phase, label(c, idx(grp + ".qk", t * qk_tiles + kt)));
          }
        exps.push_back(b.compute(Engine::scalar, OpKind::activation, core,
                                 static_cast<std::uint32_t>((end - ch) * n_q), 128, {last}, phase,
                                 label(c, idx(grp + ".exp", ch)), true, &acc));
      }
      // P V: the probabilities [128 tokens, heads x T] stationary, V chunk [128 tokens, v_dim] moving.
      std::uint64_t v_tiles = ceil_div(v_dim, kBankColumns);
      for (std::uint64_t vt = 0; vt < v_tiles; ++vt) {
        std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBankColumns, v_dim - vt * kBankColumns));
        Accumulator acc = b.open_accumulator(core, label(c, idx(grp + ".pv", vt)));
        OpId last = kNoOp;
        for (std::uint64_t t = 0; t < chunks; ++t) {
          Deps d{exps[std::min<std::uint64_t>(t / chunks_per_bank, exps.size() - 1)], kv_loads.back()};
          std::uint32_t rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(128, tokens - t * 128));
          last = b.matmul(core, rows, n_q > 128 ? 128 : n_q, n, t == 0, acc, d, phase, label(c, idx(grp + ".pv", vt * chunks + t)));
        }
        // Normalize by the row sums while draining.
        head_outputs.push_back(b.compute(Engine::vector, OpKind::tensor_scalar, core, n, n_q, {last}, phase,
                                         label(c, idx(grp + ".norm", vt)), true, &acc));
      }
    }
    // Output projection: the heads' outputs (contraction q_heads x o_in_dim) by W_o streamed, partial over cores.
    // W_o rows are the heads' dimensions: this core's heads are whole rows, contiguous.
    std::vector<OpId> out = q_heads > 0 ? streamed_projection(ctx, core, q_heads * o_in_dim, ctx.hidden, ctx.hidden, head_outputs,
                                                              statics, ring, phase, "attn.o")
                                        : std::vector<OpId>{norm};
    partial[c] = out.size() == 1 ? out[0]
                                 : b.compute(Engine::vector, OpKind::tensor_copy, core, 1, 1, out, phase, label(c, "attn.out"));
    b.use(partial[c], kv_buf);
    ctx.static_read(c, partial[c]);
  }
  return finish_block(ctx, partial, "attn");
}

std::vector<OpId> mamba_block(DecodeContext& ctx, std::int64_t layer) {
  (void)layer;
  KernelBuilder& b = ctx.b;
  const MambaSpec& s = ctx.model.mamba;
  const char* phase = "mamba";
  std::uint64_t tp = static_cast<std::uint64_t>(ctx.deployment.tp);
  std::uint64_t d_inner = std::uint64_t(s.heads) * s.head_dim;
  std::uint64_t in_cols_rank = ceil_div(2 * d_inner + 2 * std::uint64_t(s.groups) * s.state + s.heads, tp);
  std::uint64_t inner_rank = ceil_div(d_inner, tp);
  std::uint64_t heads_rank = ceil_div(s.heads, tp);
  std::vector<OpId> partial(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    std::uint8_t core = static_cast<std::uint8_t>(c);
    std::uint64_t in_cols = ctx.share(in_cols_rank, c), inner = ctx.share(inner_rank, c), heads = ctx.share(heads_rank, c);
    std::uint64_t state_bytes = heads * s.head_dim * s.state * 4;  // FP32 recurrent state
    OpId norm = rms_norm(ctx, c, {ctx.h_ready[c]}, phase, "mamba.norm");
    Deps statics = ctx.static_deps(c);
    std::uint32_t chunks = static_cast<std::uint32_t>(ceil_div(in_cols, kBankColumns) + ceil_div(ctx.hidden, kBankColumns));
    WeightRing ring(ctx, c, "mamba.w", std::max(chunk_bytes(ctx.hidden), chunk_bytes(std::max<std::uint64_t>(inner, 1))), chunks,
                    kStaticShare);
    OpId st = b.dma(core, std::max<std::uint64_t>(state_bytes, 1), 128, Location::hbm, Location::sbuf, statics,
                    phase, label(c, "mamba.load_state"));
    std::vector<OpId> x = streamed_projection(ctx, core, ctx.hidden, in_cols, in_cols_rank, {norm}, statics, ring,
                                              phase, "mamba.in");
    OpId conv = b.compute(Engine::vector, OpKind::tensor_tensor, core,
                          static_cast<std::uint32_t>(std::max<std::int64_t>(s.conv_kernel, 1) * in_cols), ctx.tokens,
                          x, phase, label(c, "mamba.conv"));
    OpId silu = b.compute(Engine::scalar, OpKind::activation, core, static_cast<std::uint32_t>(in_cols), ctx.tokens,
                          {conv}, phase, label(c, "mamba.silu"));
    // The state update h = exp(dt A) h + dt B x and the readout y = C h over [heads x head_dim x state] elements.
    std::uint32_t state_free = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, heads * s.head_dim * s.state / 128));
    OpId decay = b.compute(Engine::vector, OpKind::tensor_scalar, core, state_free, 128, {silu, st}, phase,
                           label(c, "mamba.decay"), false, nullptr, Dtype::fp32);
    OpId update = b.compute(Engine::vector, OpKind::tensor_tensor, core, state_free, 128, {decay}, phase,
                            label(c, "mamba.update"), false, nullptr, Dtype::fp32);
    OpId readout = b.compute(Engine::vector, OpKind::tensor_reduce, core, state_free, 128, {update}, phase,
                             label(c, "mamba.readout"), false, nullptr, Dtype::fp32);
    b.dma(core, std::max<std::uint64_t>(state_bytes, 1), 128, Location::sbuf, Location::hbm, {update}, phase,
          label(c, "mamba.store_state"));
    OpId gate = b.compute(Engine::vector, OpKind::tensor_tensor, core, static_cast<std::uint32_t>(std::max<std::uint64_t>(inner, 1)),
                          ctx.tokens, {readout}, phase, label(c, "mamba.gate"));
    std::vector<OpId> out = streamed_projection(ctx, core, std::max<std::uint64_t>(inner, 1), ctx.hidden, ctx.hidden, {gate},
                                                statics, ring, phase, "mamba.out");
    partial[c] = b.compute(Engine::vector, OpKind::tensor_copy, core, 1, 1, out, phase, label(c, "mamba.done"));
    ctx.static_read(c, partial[c]);
  }
  return finish_block(ctx, partial, "mamba");
}

std::vector<OpId> router_block(DecodeContext& ctx, const std::vector<OpId>& normed, const std::vector<OpId>& fused_scores,
                               const std::vector<Deps>& load_deps) {
  KernelBuilder& b = ctx.b;
  const ModelSpec& m = ctx.model;
  const char* phase = "router";
  std::uint32_t experts = static_cast<std::uint32_t>(m.experts);
  std::vector<OpId> scores(ctx.lnc), sent(ctx.lnc, kNoOp), topk(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    std::uint8_t core = static_cast<std::uint8_t>(c);
    std::uint32_t cols = ctx.share(experts, c);
    if (!fused_scores.empty()) {
      scores[c] = fused_scores[c];
    } else {
    // The router runs in FP32 (docs/hardware-model.md: Qwen3-MoE router in FP32): its own weights, 4 bytes each.
    WeightRing ring(ctx, c, "router.w", chunk_bytes(ctx.hidden, std::max<std::uint32_t>(cols, 1), 4),
                    static_cast<std::uint32_t>(ceil_div(std::max<std::uint32_t>(cols, 1), kBankColumns)), kStaticShare / 2);
    std::vector<OpId> drains = streamed_projection(ctx, core, ctx.hidden, std::max<std::uint32_t>(cols, 1), experts, {normed[c]},
                                                   load_deps.empty() ? ctx.static_deps(c) : load_deps[c], ring, phase,
                                                   "router.scores", Dtype::fp32);
    scores[c] = drains.back();
    }
  }
  // Each core scored its share of the experts; the cores exchange them (sendrecv) to rank all E.
  for (std::uint32_t c = 0; ctx.lnc > 1 && c < ctx.lnc; ++c) {
    const std::uint32_t peer = (c + 1) % ctx.lnc;
    sent[c] = ctx.exchange(c, std::uint64_t(std::max<std::uint32_t>(ctx.share(experts, c), 1)) * ctx.tokens * 4, ctx.tokens,
                           peer, {scores[c]}, {scores[peer]}, phase, label(c, "router.exchange"));
  }
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    std::uint8_t core = static_cast<std::uint8_t>(c);
    Deps d{scores[c]};
    for (std::uint32_t o = 0; o < ctx.lnc; ++o)
      if (o != c) d.push_back(sent[o]);
    OpId prob = b.compute(Engine::scalar, OpKind::activation, core, experts, ctx.tokens, d, phase,
                          label(c, m.router.kind == RouterKind::sigmoid ? "router.sigmoid" : "router.exp"), false,
                          nullptr, Dtype::fp32);
    OpId max8 = b.compute(Engine::vector, OpKind::tensor_reduce, core, experts, ctx.tokens, {prob}, phase,
                          label(c, "router.max8"), false, nullptr, Dtype::fp32);
    OpId index = b.compute(Engine::vector, OpKind::tensor_reduce, core, experts, ctx.tokens, {max8}, phase,
                           label(c, "router.find_index8"), false, nullptr, Dtype::fp32);
    topk[c] = b.compute(Engine::vector, OpKind::tensor_scalar, core, static_cast<std::uint32_t>(m.top_k), ctx.tokens,
                        {index}, phase, label(c, "router.affinities"), false, nullptr, Dtype::fp32);
  }
  return topk;
}

std::vector<OpId> embedding(DecodeContext& ctx) {
  std::vector<OpId> ready(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c)
    ready[c] = ctx.b.dma(static_cast<std::uint8_t>(c), ctx.hidden_bytes(), 128, Location::hbm, Location::sbuf, {},
                         "embedding", label(c, "embed.gather"));
  return ready;
}

void lm_head(DecodeContext& ctx) {
  const char* phase = "lm_head";
  std::uint64_t vocab_rank = ceil_div(ctx.model.vocab, ctx.deployment.tp);
  std::vector<OpId> done(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    std::uint8_t core = static_cast<std::uint8_t>(c);
    std::uint64_t cols = ctx.share(vocab_rank, c);
    OpId norm = rms_norm(ctx, c, {ctx.h_ready[c]}, phase, "final_norm");
    // Four chunks in flight; each chunk's logits go straight from PSUM into a running arg-max (max8).
    WeightRing ring(ctx, c, "lm_head.w", chunk_bytes(ctx.hidden), 4, kLmHeadShare);
    std::vector<OpId> maxes = streamed_projection(ctx, c, ctx.hidden, cols, vocab_rank, {norm}, {ctx.h_ready[c]}, ring,
                                                  phase, "lm_head", Dtype::bf16, OpKind::tensor_reduce);
    done[c] = ctx.b.compute(Engine::vector, OpKind::tensor_reduce, core, static_cast<std::uint32_t>(8 * maxes.size()),
                            ctx.tokens, maxes, phase, label(c, "lm_head.argmax"), false, nullptr, Dtype::fp32);
  }
  // The ranks agree on the token: a tiny all-reduce of (value, index) pairs.
  Deps all = done;
  ctx.b.all_reduce(0, 8ull * ctx.tokens, all, "collective", label(0, "lm_head.argmax_all_reduce"));
}

}  // namespace stasim
