// W4A8 inside the tuned megakernel (`w4a8-fused`; the study's W4A8 ran compiler-lowered, xla_moe.cpp: no public
// kernel takes MXFP4 gate/up with a BF16 down): the routed experts' gate/up weights in MXFP4 (4-bit elements,
// one 8-bit scale per 32), the hidden state quantized to MX once per layer, gate/up on the MX matmul
// (docs/hardware-model.md: nc_matmul_mx contracts mx_k_factor x 128 rows in the cycles of a BF16 matmul), the
// down projection in BF16. Same loop and sharding as the dense kernel (dense_moe.cpp).
//
// The conversion before the BF16 down projection, per expert and projection (an assumption: nothing public
// shows a BF16 consumer of nc_matmul_mx output). The MX matmul writes its output in the swizzled layout
// [128, I/512, T, 4] that nki-library prepares for the next MX quantization (gate_up_projection_mx_shard_H.py:
// "the output will be in SBUF with swizzle layout for subsequent quantization"); the BF16 down projection reads
// [128 of I, I/128, T]. Each 512 columns make a layout round trip on the expert's critical path: PSUM drained
// to SBUF, transposed by TensorE to token rows [4T, 128] and drained, transposed back to [128, T] per 128
// columns and drained, then summed across cores (H split), φ and product as in the dense kernel.
#include <optional>
#include <algorithm>
#include <memory>

#include "dataflows/expert_kernel.hpp"
#include "dataflows/moe_block.hpp"
#include "dataflows/sbuf_budget.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kMxBlock = 32;  // elements per MX scale
constexpr std::uint32_t kMxWidth = 4;   // _q_width: an MX element packs 4 values along the contraction

struct MxStream {
  PsumPlan* plan = nullptr;
  std::unique_ptr<WeightRing> weights, scales;
  OpId hidden_mx = kNoOp;
};

// One projection's 512-column tile: MX matmuls, then the layout round trip into [128 of I, T] tiles.
std::vector<OpId> mx_projection_tile(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, std::uint32_t T,
                                     std::uint32_t c0, std::uint32_t cols, OpId hidden_mx, OpId w, OpId s, MxStream& st,
                                     const std::string& pn) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  const std::uint32_t mx_k = ctx.hw.tensor.rows * ctx.hw.tensor.mx_k_factor;
  const std::uint32_t k_tiles = static_cast<std::uint32_t>(ceil_div(slice.h_rows, mx_k));
  const std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(cols, 128));
  const std::uint32_t t = c0 / 512;
  // Weight [512 of H (packed), 128 of I] stationary, hidden [512 (packed), T] moving, per 128 columns.
  Accumulator acc = st.plan->open_at(PsumRole::gate_up, t, label(core, idx(pn + ".acc", t)));
  OpId last = kNoOp;
  for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
    for (std::uint32_t it = 0; it < i_tiles; ++it)
      last = b.matmul(c, std::min(mx_k, slice.h_rows - kt * mx_k), std::min<std::uint32_t>(128, cols - it * 128), T, true, acc,
                      kt == 0 && it == 0 ? Deps{hidden_mx, w, s} : Deps{}, "gate_up",
                      label(core, idx(pn + ".mx_mm", (t * k_tiles + kt) * i_tiles + it)), Dtype::mxfp4);
  st.weights->read_by(w, last);
  st.scales->read_by(s, last);
  const std::uint32_t parts = std::min<std::uint32_t>(128, ceil_div(cols, kMxWidth));
  OpId packed = b.compute(Engine::vector, OpKind::tensor_copy, c, kMxWidth * T, parts, {last}, "act",
                          label(core, idx(pn + ".mx_drain", t)), true, &acc, Dtype::bf16);
  // Out of the swizzle: token rows [4T, 128].
  Accumulator rows_acc = st.plan->open(PsumRole::layout, label(core, idx(pn + ".mx_rows", t)));
  OpId tr = b.transpose(c, parts, kMxWidth * T, rows_acc, {packed}, "act", label(core, idx(pn + ".mx_unswizzle", t)));
  OpId rows = b.compute(Engine::vector, OpKind::tensor_copy, c, parts, kMxWidth * T, {tr}, "act",
                        label(core, idx(pn + ".mx_rows_drain", t)), true, &rows_acc, Dtype::bf16);
  // Back to [128 of I, T] per 128 columns, the layout φ, the product and the down projection read.
  std::vector<OpId> out;
  for (std::uint32_t it = 0; it < i_tiles; ++it) {
    Accumulator col_acc = st.plan->open(PsumRole::layout, label(core, idx(pn + ".mx_cols", t * 4 + it)));
    OpId back = b.transpose(c, T, std::min<std::uint32_t>(128, cols - it * 128), col_acc, {rows}, "act",
                            label(core, idx(pn + ".mx_transpose", t * 4 + it)));
    out.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, T, std::min<std::uint32_t>(128, cols - it * 128), {back},
                            "act", label(core, idx(pn + ".mx_convert", t * 4 + it)), true, &col_acc, Dtype::fp32));
  }
  return out;
}

}  // namespace

void w4a8_fused_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  const std::uint32_t mx_k = ctx.hw.tensor.rows * ctx.hw.tensor.mx_k_factor;
  if (mx_k == 0)
    throw InputError("dataflow w4a8-fused needs MX matmuls, but " + ctx.hw.name +
                     " has tensor.mx_k_factor = 0 (NeuronCore-v4 / trn3 supports them)");
  const ExpertGroups& ex = ctx.experts;
  const ExpertSlice slice = expert_slice(ctx, ex.shard);
  if (slice.i_cols == 0) return;
  const bool gated = ctx.model.gated;
  const std::uint32_t projections = gated ? 2 : 1;
  const std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(slice.i_cols, 512));
  std::vector<MxStream> streams(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    MxStream& st = streams[c];
    PsumRoles roles;
    roles.layout = 2;  // the round trip's two transposes in flight
    roles.explicit_addresses = ctx.options.explicit_psum;
    st.plan = &combiners[c].plan(roles);
    // Per 512 columns of one projection: [h_rows, 512] MXFP4 elements, and one scale byte per 32 of them.
    std::uint64_t w_slot = ceil_div(std::uint64_t(slice.h_rows) * std::min<std::uint32_t>(512, slice.i_cols) / 2, 128);
    std::uint64_t s_slot = ceil_div(std::uint64_t(slice.h_rows / kMxBlock) * std::min<std::uint32_t>(512, slice.i_cols), 128);
    std::uint32_t per_expert = projections * n_tiles + static_cast<std::uint32_t>(ceil_div(slice.i_cols, 128));
    st.weights = std::make_unique<WeightRing>(ctx, c, "experts.w", std::max<std::uint64_t>(w_slot, std::uint64_t(slice.h_cols) * 2),
                                              2 * per_expert, kExpertWeightShare);
    st.scales = std::make_unique<WeightRing>(ctx, c, "experts.mx_scales", s_slot, 2 * projections * n_tiles, kPrivateShare / 2);
    // QuantizeMX of the normalized hidden on VectorE, once per layer for every expert.
    st.hidden_mx = ctx.b.compute(Engine::vector, OpKind::tensor_scalar, static_cast<std::uint8_t>(c), ctx.h_tiles * ctx.tokens, 128,
                                 {in.normed[c]}, "gate_up", label(c, "experts.h_quantize_mx"));
  }
  auto front = [&](std::uint32_t core, std::uint32_t T, const std::string& name, DownWeights& down) {
    MxStream& st = streams[core];
    Deps start{in.topk[core]};
    std::vector<GateUpTiles> tiles;
    GateUpTiles t;
    t.first_col = 0;
    t.cols = slice.i_cols;
    for (std::uint32_t p = 0; p < projections; ++p) {
      bool is_gate = gated && p == 0;
      std::string pn = name + (is_gate ? ".gate" : ".up");
      for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
        std::uint32_t c0 = nt * 512, cols = std::min<std::uint32_t>(512, slice.i_cols - c0);
        OpId w = st.weights->load(std::uint64_t(slice.h_rows) * cols / 2, 128, 0, start, "gate_up", label(core, idx(pn + ".load", nt)),
                                  ctx.routed_dge());
        // The scales go to their partitions with gaps (one scale row per 8 partitions of H, nki-library's
        // selective MX kernel: a DMA with a vector offset per partition), which only software DGE generates.
        OpId s = st.scales->load(std::uint64_t(slice.h_rows / kMxBlock) * cols, 128, 0, start, "gate_up",
                                 label(core, idx(pn + ".load_scales", nt)), DgeMode::swdge);
        std::vector<OpId> ready = mx_projection_tile(ctx, core, slice, T, c0, cols, st.hidden_mx, w, s, st, pn);
        std::vector<OpId>& dst = is_gate ? t.gate : t.up;
        dst.insert(dst.end(), ready.begin(), ready.end());
      }
    }
    down = load_down_tiles(ctx, core, slice.i_cols, slice.h_cols, *st.weights, start, name);
    tiles.push_back(std::move(t));
    return tiles;
  };
  auto back = [&](std::uint32_t core, std::uint32_t T, const DownWeights& down, const std::vector<GateUpTiles>& tiles,
                  const std::string& name) {
    DownInput d;
    d.i_cols = slice.i_cols;
    d.tokens = T;
    d.p_ready = gate_up_product(ctx, core, tiles, T, combiners[core].wants_scaled_input(), name);
    d.weights = down;
    combiners[core].add_expert(d, name);
  };
  if (ex.shard == ShardOn::hidden) {
    const CoreExperts& work = ex.cores[0];
    std::size_t items = ex.all_experts ? work.groups.size() : work.routes.size();
    struct Item {
      std::string name;
      std::uint32_t T = 1;
      std::vector<DownWeights> downs;
      std::vector<std::vector<GateUpTiles>> tiles;
    };
    // Software-pipelined by one item as in the dense kernel (dense_moe.cpp): item i's gate/up before item i-1's
    // exchange and tail.
    auto finish = [&](Item& it) {
      if (slice.partial) exchange_partials(ctx, it.tiles, it.T, it.name);
      for (std::uint32_t c = 0; c < ctx.lnc; ++c) back(c, it.T, it.downs[c], it.tiles[c], it.name);
    };
    std::optional<Item> waiting;
    for (std::size_t i = 0; i < items; ++i) {
      Item it;
      it.name = "e" + std::to_string(i);
      it.T = ex.all_experts ? work.tokens : 1;
      it.downs.resize(ctx.lnc);
      if (ctx.options.explicit_psum && waiting) {  // as in the dense kernel: gate/up after the previous tail
        finish(*waiting);
        waiting.reset();
      }
      for (std::uint32_t c = 0; c < ctx.lnc; ++c) it.tiles.push_back(front(c, it.T, it.name, it.downs[c]));
      if (waiting) finish(*waiting);
      waiting = std::move(it);
    }
    if (waiting) finish(*waiting);
    return;
  }
  for (std::uint32_t c = 0; c < ctx.lnc; ++c)
    for (std::size_t i = 0; i < ex.cores[c].routes.size(); ++i) {
      std::string name = "e" + std::to_string(i);
      DownWeights down;
      std::vector<GateUpTiles> tiles = front(c, 1, name, down);
      back(c, 1, down, tiles, name);
    }
}

}  // namespace stasim
