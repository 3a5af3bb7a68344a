// The compiler-lowered baseline (PyTorch/XLA-like, docs/cardan.md "Baselines"): the same math as the dense
// megakernel without a custom MoE kernel. Every op is its own kernel: it starts when the previous one has
// finished, reads its inputs from HBM and writes its output back to HBM (no cross-op fusion, intermediates
// round-trip through HBM), and nothing is fetched across the routing boundary: the top-k result goes to HBM and
// is read back before the first expert weight is requested.
//
// W4A8 as the study ran it (docs/dataflows.md "w4a8") goes the same way: nki-library's MoE decode kernel takes
// MXFP4 only with an MX down projection too (moe_tkg: FP8 or MxFP4 for every projection), so MXFP4 gate/up with a
// BF16 down falls back to the compiler flow. Its gate and up are MX matmul kernels on the hidden quantized to MX
// once per layer, and each writes its output in the MX matmul's swizzled layout; a layout kernel converts it
// (the "layout boundary") before φ and the BF16 down projection read it.
#include <memory>

#include "dataflows/moe_block.hpp"
#include "dataflows/sbuf_budget.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

constexpr const char* kRoundTrip = "intermediate";
constexpr std::uint32_t kMxBlock = 32;  // elements per MX scale
constexpr std::uint32_t kMxWidth = 4;   // an MX element packs 4 values along the contraction

// The gate/up weights' format: BF16 (the xla baseline) or MXFP4 on the MX matmul (w4a8).
enum class GateUp { bf16, mxfp4 };

class XlaCore {
 public:
  XlaCore(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner, GateUp format)
      : ctx_(ctx), b_(ctx.b), in_(in), combiner_(combiner), core_(core), c_(static_cast<std::uint8_t>(core)), format_(format) {
    i_rank_ = ctx.model.intermediate_per_rank(ctx.deployment.tp);
    i_cols_ = ctx.share(i_rank_, core);
  }

  void build() {
    if (i_cols_ == 0) return;
    const ModelSpec& m = ctx_.model;
    std::uint32_t per_expert = static_cast<std::uint32_t>((m.gated ? 2 : 1) * ceil_div(i_cols_, 512) + ceil_div(i_cols_, kDownRowsPerChunk));
    WeightRing ring(ctx_, core_, "experts.w", expert_chunk_bytes(ctx_, i_cols_), 2 * per_expert, kExpertWeightShare);
    // The router's outputs (normalized hidden, expert ids and affinities) leave the router kernel through HBM.
    OpId h = round_trip(ctx_.hidden_bytes(), in_.normed[core_], "moe.normed");
    OpId route = round_trip(std::uint64_t(ctx_.tokens) * ctx_.model.top_k * 8, in_.topk[core_], "moe.routes");
    OpId prev = route;
    if (format_ == GateUp::mxfp4) {
      mx_ring_ = std::make_unique<WeightRing>(ctx_, core_, "experts.mx_scales", mx_scale_bytes(), 4, kPrivateShare / 2);
      prev = h = quantize_kernel(h, prev);
    }
    Deps after_route{h, route};
    OpId sum = kNoOp;
    // The compiler lowers the routed experts as one batched matmul chain per distinct expert of the step, over
    // the tokens routed to it.
    const std::vector<ExpertGroup>& experts = ctx_.experts.step;
    for (std::uint32_t e = 0; e < experts.size(); ++e) {
      std::string en = "e" + std::to_string(e);
      std::uint32_t T = experts[e].tokens;
      std::uint64_t act_bytes = std::uint64_t(T) * i_cols_ * 2;
      // gate and up: one kernel each, output [T, I_c] to HBM.
      auto project = [&](const std::string& pn) {
        if (format_ == GateUp::bf16) return projection_kernel(ring, pn, T, Deps{prev, after_route[0], after_route[1]});
        OpId packed = mx_projection_kernel(ring, pn, T, Deps{prev, after_route[0], after_route[1]});
        return layout_kernel(pn, T, packed);
      };
      OpId gate_out = kNoOp;
      if (m.gated) prev = gate_out = project(en + ".gate");
      OpId up_out = prev = project(en + ".up");
      // activation kernel: reads gate and up back, writes p^T.
      ProjectionOut gate, up;
      gate.in_psum = up.in_psum = false;
      const std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols_, 512));
      for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
        // One reload per 512 columns, named apart when there are several.
        auto tile = [&](const std::string& p) { return n_tiles > 1 ? idx(en + p, nt) : en + p; };
        if (m.gated) gate.ready.push_back(reload(act_bytes, T, {prev, gate_out}, tile(".gate")));
        up.ready.push_back(reload(act_bytes, T, {prev, up_out}, tile(".up")));
      }
      OpId p_t = activation_product(ctx_, core_, i_cols_, m.gated ? &gate : nullptr, up, false, en, T);
      prev = spill(act_bytes, {p_t}, en + ".p");
      // down kernel: reads p^T back, y_e = W_downᵀ p to HBM.
      OpId p_in = reload(act_bytes, std::min<std::uint32_t>(128, i_cols_), {prev}, en + ".p");
      std::vector<OpId> down_w = load_down(ctx_, core_, i_cols_, ring, {prev}, "down", en, ctx_.routed_dge());
      DownCombiner down(ctx_, core_, en + ".down_kernel", ctx_.hidden, T);
      DownInput d;
      d.i_cols = i_cols_;
      d.tokens = T;
      d.p_ready = p_in;
      d.weights = down_weights(down_w, ring);
      down.add_expert(d, en);
      std::uint64_t y_bytes = std::uint64_t(ctx_.hidden) * ctx_.tokens * 4;
      prev = spill(y_bytes, {down.finish()}, en + ".y");
      // combine kernel: sum += a_e y_e, both read from HBM, the sum written back.
      Deps in{reload(y_bytes, 128, {prev}, en + ".y")};
      if (sum != kNoOp) in.push_back(reload(y_bytes, 128, {prev, sum}, en + ".sum"));
      OpId add = b_.compute(Engine::vector, OpKind::tensor_tensor, c_, ctx_.h_tiles * ctx_.tokens, 128, in, "combine",
                            label(core_, en + ".combine"), false, nullptr, Dtype::fp32);
      sum = prev = spill(y_bytes, {add}, en + ".sum");
    }
    if (sum != kNoOp)
      combiner_.add_partial(reload(std::uint64_t(ctx_.hidden) * ctx_.tokens * 4, 128, {sum}, "experts.sum"));
  }

 private:
  OpId spill(std::uint64_t bytes, const Deps& deps, const std::string& name) {
    return b_.dma(c_, bytes, 128, Location::sbuf, Location::hbm, deps, kRoundTrip, label(core_, name + ".spill"));
  }
  OpId reload(std::uint64_t bytes, std::uint32_t partitions, const Deps& deps, const std::string& name) {
    return b_.dma(c_, bytes, partitions, Location::hbm, Location::sbuf, deps, kRoundTrip, label(core_, name + ".reload"));
  }
  OpId round_trip(std::uint64_t bytes, OpId ready, const std::string& name) {
    return reload(bytes, 128, {spill(bytes, {ready}, name)}, name);
  }

  // One gate or up kernel: weights loaded once the kernel starts, matmuls, drained and written to HBM.
  OpId projection_kernel(WeightRing& ring, const std::string& name, std::uint32_t T, const Deps& start) {
    std::vector<OpId> w = load_projection(ctx_, core_, i_cols_, i_rank_, ring, start, "gate_up", name, 0, ctx_.routed_dge());
    ProjectionOut out = dense_projection(ctx_, core_, i_cols_, start, w, ring, "gate_up", name, T);
    Deps drains;
    for (std::size_t nt = 0; nt < out.accs.size(); ++nt) {
      std::uint32_t n = std::min<std::uint32_t>(512, i_cols_ - static_cast<std::uint32_t>(nt) * 512);
      drains.push_back(b_.compute(Engine::vector, OpKind::tensor_copy, c_, n, T, {out.ready[nt]}, "gate_up",
                                  label(core_, idx(name + ".drain", nt)), true, &out.accs[nt]));
    }
    return spill(std::uint64_t(T) * i_cols_ * 2, drains, name);
  }

  // The MX rows of a projection: one 8-bit scale per 32 rows of H per column (the slot of the scales' ring).
  std::uint64_t mx_scale_bytes() const {
    return ceil_div(std::uint64_t(ceil_div(ctx_.hidden, kMxBlock)) * std::min<std::uint32_t>(512, i_cols_), 128);
  }

  // QuantizeMX of the normalized hidden: its own kernel, once per layer (read back, quantized on VectorE, the
  // packed elements and their scales written to HBM).
  OpId quantize_kernel(OpId h, OpId after) {
    OpId in = reload(ctx_.hidden_bytes(), 128, {h, after}, "moe.h_mx");
    OpId q = b_.compute(Engine::vector, OpKind::tensor_scalar, c_, ctx_.h_tiles * ctx_.tokens, 128, {in}, "gate_up",
                        label(core_, "moe.h_quantize_mx"));
    return spill(std::uint64_t(ctx_.hidden) * ctx_.tokens + ceil_div(ctx_.hidden, kMxBlock) * ctx_.tokens, {q}, "moe.h_mx");
  }

  // One MX gate or up kernel: the quantized hidden read back, the MXFP4 weights and their scales loaded, MX matmuls
  // (K = 128 x mx_k_factor rows each) per 128 columns, drained in the swizzled layout [128, I/512, T, 4] that the
  // MX matmul leaves, and written to HBM.
  OpId mx_projection_kernel(WeightRing& ring, const std::string& name, std::uint32_t T, const Deps& start) {
    const std::uint32_t mx_k = ctx_.hw.tensor.rows * ctx_.hw.tensor.mx_k_factor;
    const std::uint32_t h_rows = ctx_.hidden;
    const std::uint32_t k_tiles = static_cast<std::uint32_t>(ceil_div(h_rows, mx_k));
    OpId hidden = reload(std::uint64_t(h_rows) * T + ceil_div(h_rows, kMxBlock) * T, 128, start, name + ".h_mx");
    Deps drains;
    std::uint32_t n_mm = 0;
    for (std::uint32_t c0 = 0, t = 0; c0 < i_cols_; c0 += 512, ++t) {
      const std::uint32_t cols = std::min<std::uint32_t>(512, i_cols_ - c0);
      OpId w = ring.load(std::uint64_t(h_rows) * cols / 2, 128, 0, start, "gate_up", label(core_, idx(name + ".load", t)),
                         ctx_.routed_dge());
      // The scales go to their partitions with gaps (a DMA with a vector offset per partition): software DGE.
      OpId s = mx_ring_->load(std::uint64_t(ceil_div(h_rows, kMxBlock)) * cols, 128, 0, start, "gate_up",
                              label(core_, idx(name + ".load_scales", t)), DgeMode::swdge);
      Accumulator acc = b_.open_accumulator(c_, label(core_, idx(name + ".acc", t)));
      const std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(cols, 128));
      OpId last = kNoOp;
      for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
        for (std::uint32_t it = 0; it < i_tiles; ++it)
          last = b_.matmul(c_, std::min(mx_k, h_rows - kt * mx_k), std::min<std::uint32_t>(128, cols - it * 128), T, true, acc,
                           kt == 0 && it == 0 ? Deps{hidden, w, s} : Deps{}, "gate_up",
                           label(core_, idx(name + ".mx_mm", n_mm++)), Dtype::mxfp4);
      ring.read_by(w, last);
      mx_ring_->read_by(s, last);
      drains.push_back(b_.compute(Engine::vector, OpKind::tensor_copy, c_, kMxWidth * T,
                                  std::min<std::uint32_t>(128, ceil_div(cols, kMxWidth)), {last}, "gate_up",
                                  label(core_, idx(name + ".mx_drain", t)), true, &acc, Dtype::bf16));
    }
    return spill(std::uint64_t(T) * i_cols_ * 2, drains, name);
  }

  // The layout boundary: the swizzled output read back, per 512 columns transposed out of the swizzle to token
  // rows [4T, 128] and back to [128 of I, T] per 128 columns (TensorE through PSUM, each drained), written to HBM
  // in the layout the activation kernel and the BF16 down projection read.
  OpId layout_kernel(const std::string& name, std::uint32_t T, OpId packed) {
    Deps done;
    for (std::uint32_t c0 = 0, t = 0; c0 < i_cols_; c0 += 512, ++t) {
      const std::uint32_t cols = std::min<std::uint32_t>(512, i_cols_ - c0);
      const std::uint32_t parts = std::min<std::uint32_t>(128, ceil_div(cols, kMxWidth));
      OpId in = reload(std::uint64_t(T) * cols * 2, parts, {packed}, idx(name + ".mx_packed", t));
      Accumulator rows_acc = b_.open_accumulator(c_, label(core_, idx(name + ".mx_rows", t)));
      OpId tr = b_.transpose(c_, parts, kMxWidth * T, rows_acc, {in}, "act", label(core_, idx(name + ".mx_unswizzle", t)));
      OpId rows = b_.compute(Engine::vector, OpKind::tensor_copy, c_, parts, kMxWidth * T, {tr}, "act",
                             label(core_, idx(name + ".mx_rows_drain", t)), true, &rows_acc, Dtype::bf16);
      for (std::uint32_t it = 0; it * 128 < cols; ++it) {
        Accumulator col_acc = b_.open_accumulator(c_, label(core_, idx(name + ".mx_cols", t * 4 + it)));
        OpId back = b_.transpose(c_, T, std::min<std::uint32_t>(128, cols - it * 128), col_acc, {rows}, "act",
                                 label(core_, idx(name + ".mx_transpose", t * 4 + it)));
        done.push_back(b_.compute(Engine::vector, OpKind::tensor_copy, c_, T, std::min<std::uint32_t>(128, cols - it * 128),
                                  {back}, "act", label(core_, idx(name + ".mx_convert", t * 4 + it)), true, &col_acc,
                                  Dtype::bf16));
      }
    }
    return spill(std::uint64_t(T) * i_cols_ * 2, done, name + ".layout");
  }

  DecodeContext& ctx_;
  KernelBuilder& b_;
  const MoeInputs& in_;
  DownCombiner& combiner_;
  std::uint32_t core_;
  std::uint8_t c_;
  GateUp format_;
  std::unique_ptr<WeightRing> mx_ring_;
  std::uint64_t i_rank_ = 0;
  std::uint32_t i_cols_ = 0;
};

}  // namespace

void xla_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) XlaCore(ctx, c, in, combiners[c], GateUp::bf16).build();
}

void w4a8_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  if (ctx.hw.tensor.mx_k_factor == 0)
    throw InputError("dataflow w4a8 needs MX matmuls, but " + ctx.hw.name +
                     " has tensor.mx_k_factor = 0 (NeuronCore-v4 / trn3 supports them)");
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) XlaCore(ctx, c, in, combiners[c], GateUp::mxfp4).build();
}

}  // namespace stasim
