#include "dataflows/surrounding_projections.hpp"

#include <algorithm>

#include "dataflows/expert_ffn.hpp"
#include "dataflows/sbuf_budget.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

}  // namespace

FusedStream::FusedStream(DecodeContext& ctx, std::uint32_t core, const std::vector<std::uint32_t>& widths,
                         const Deps& load_deps, const char* phase, const std::string& name, bool lead_alone)
    : ctx_(ctx), core_(core), widths_(widths), phase_(phase), name_(name) {
  std::uint32_t total = 0;
  for (std::uint32_t w : widths) total += w;
  // Tiles: the first segment (the router's scores) alone, then the rest 512 columns at a time.
  std::uint32_t lead = widths.empty() || !lead_alone ? 0 : widths[0];
  for (std::uint32_t c0 = 0; c0 < lead; c0 += kBankColumns) tiles_.push_back({c0, std::min(kBankColumns, lead - c0)});
  lead_tiles_ = lead_alone ? static_cast<std::uint32_t>(tiles_.size()) : 0;
  for (std::uint32_t c0 = lead; c0 < total; c0 += kBankColumns) tiles_.push_back({c0, std::min(kBankColumns, total - c0)});
  ring_ = std::make_unique<WeightRing>(ctx, core, name + ".w", expert_chunk_bytes(ctx, std::min(total, kBankColumns)),
                                       static_cast<std::uint32_t>(tiles_.size()), kStaticShare / 2);
  for (std::size_t t = 0; t < tiles_.size(); ++t) {
    auto [c0, w] = tiles_[t];
    // The fused weight [H, Σ widths] is an offline concatenation: a tile of w columns arrives in runs of w.
    loads_.push_back(ring_->load(std::uint64_t(ctx.hidden) * w * 2, 128,
                                 ctx.column_run(std::uint64_t(w) * 2, std::uint64_t(total) * ctx.lnc * 2), load_deps, phase,
                                 label(core, idx(name + ".load", t))));
  }
  drains_.assign(tiles_.size(), kNoOp);
}

void FusedStream::compute(std::uint32_t first, std::uint32_t last, OpId normed) {
  KernelBuilder& b = ctx_.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core_);
  const std::uint32_t k_tiles = ctx_.h_tiles;
  for (std::uint32_t t = first; t < std::min<std::uint32_t>(last, tiles()); ++t) {
    std::uint32_t w = tiles_[t].second;
    Accumulator acc = b.open_accumulator(c, label(core_, idx(name_ + ".acc", t)));
    OpId mm = kNoOp;
    for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
      mm = b.matmul(c, std::min<std::uint32_t>(128, ctx_.hidden - kt * 128), ctx_.tokens, w, true, acc,
                    kt == 0 ? Deps{normed, loads_[t]} : Deps{}, phase_, label(core_, idx(name_ + ".mm", t * k_tiles + kt)));
    ring_->read_by(loads_[t], mm);
    drains_[t] = b.compute(Engine::vector, OpKind::tensor_copy, c, w, ctx_.tokens, {mm}, phase_,
                           label(core_, idx(name_ + ".drain", t)), true, &acc);
  }
}

std::vector<std::vector<OpId>> FusedStream::ready() const {
  std::vector<std::vector<OpId>> out;
  std::uint32_t begin = 0;
  for (std::uint32_t w : widths_) {
    std::vector<OpId> seg;
    for (std::uint32_t s0 = 0; s0 < w; s0 += kBankColumns) {
      std::uint32_t last_col = begin + std::min(w, s0 + kBankColumns) - 1;
      std::size_t t = 0;
      while (t + 1 < tiles_.size() && tiles_[t + 1].first <= last_col) ++t;
      seg.push_back(drains_[t]);
    }
    out.push_back(seg);
    begin += w;
  }
  return out;
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
