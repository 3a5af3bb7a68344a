#include "dataflows/surrounding_projections.hpp"

#include <algorithm>

#include "dataflows/expert_ffn.hpp"
#include "dataflows/sbuf_budget.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

}  // namespace

std::vector<std::vector<OpId>> fused_projection(DecodeContext& ctx, std::uint32_t core,
                                                const std::vector<std::uint32_t>& widths, OpId normed,
                                                const Deps& load_deps, const char* phase, const std::string& name,
                                                bool lead_alone) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t total = 0;
  for (std::uint32_t w : widths) total += w;
  // Tiles: the first segment (the router's scores) alone, then the rest 512 columns at a time.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tiles;  // (first column, width)
  std::uint32_t lead = widths.empty() || !lead_alone ? 0 : widths[0];
  for (std::uint32_t c0 = 0; c0 < lead; c0 += kBankColumns) tiles.push_back({c0, std::min(kBankColumns, lead - c0)});
  for (std::uint32_t c0 = lead; c0 < total; c0 += kBankColumns) tiles.push_back({c0, std::min(kBankColumns, total - c0)});
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, std::min(total, kBankColumns)),
                  static_cast<std::uint32_t>(tiles.size()), kStaticShare / 2);
  std::vector<OpId> drains;
  const std::uint32_t k_tiles = ctx.h_tiles;
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    auto [c0, w] = tiles[t];
    // The fused weight [H, Σ widths] is an offline concatenation: a tile of w columns arrives in runs of w.
    OpId load = ring.load(std::uint64_t(ctx.hidden) * w * 2, 128, ctx.column_run(std::uint64_t(w) * 2, std::uint64_t(total) * ctx.lnc * 2),
                          load_deps, phase, label(core, idx(name + ".load", t)));
    Accumulator acc = b.open_accumulator(c, label(core, idx(name + ".acc", t)));
    OpId last = kNoOp;
    for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
      last = b.matmul(c, std::min<std::uint32_t>(128, ctx.hidden - kt * 128), ctx.tokens, w, true, acc,
                      kt == 0 ? Deps{normed, load} : Deps{}, phase, label(core, idx(name + ".mm", t * k_tiles + kt)));
    ring.read_by(load, last);
    drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, w, ctx.tokens, {last}, phase,
                               label(core, idx(name + ".drain", t)), true, &acc));
  }
  // Each segment's 512-column tiles are ready once the fused tiles covering them are drained.
  std::vector<std::vector<OpId>> ready;
  std::uint32_t begin = 0;
  for (std::uint32_t w : widths) {
    std::vector<OpId> seg;
    for (std::uint32_t s0 = 0; s0 < w; s0 += kBankColumns) {
      std::uint32_t last_col = begin + std::min(w, s0 + kBankColumns) - 1;
      std::size_t t = 0;
      while (t + 1 < tiles.size() && tiles[t + 1].first <= last_col) ++t;
      seg.push_back(drains[t]);
    }
    ready.push_back(seg);
    begin += w;
  }
  return ready;
}

OpId fused_mlp_tail(DecodeContext& ctx, std::uint32_t core, std::uint32_t cols, const std::vector<OpId>& gate_ready,
                    const std::vector<OpId>& up_ready, const Deps& load_deps, DownCombiner& combiner,
                    const std::string& name) {
  WeightRing ring(ctx, core, name + ".w", expert_chunk_bytes(ctx, cols), static_cast<std::uint32_t>(ceil_div(cols, kDownRowsPerChunk)),
                  kStaticShare / 2);
  std::vector<OpId> down_w = load_down(ctx, core, cols, ring, load_deps, "dense_mlp", name);
  ProjectionOut gate, up;
  gate.in_psum = up.in_psum = false;
  gate.ready = gate_ready;
  up.ready = up_ready;
  OpId p_t = activation_product(ctx, core, cols, ctx.model.gated ? &gate : nullptr, up, false, name);
  DownInput d;
  d.i_cols = cols;
  d.tokens = ctx.tokens;
  d.p_ready = p_t;
  d.weights = down_weights(down_w, ring);
  combiner.add_expert(d, name);
  return combiner.last_matmul();
}

}  // namespace stasim
