// The compiler-lowered baseline (PyTorch/XLA-like, docs/cardan.md "Baselines"): the same math as the dense
// megakernel without a custom MoE kernel. Every op is its own kernel: it starts when the previous one has
// finished, reads its inputs from HBM and writes its output back to HBM (no cross-op fusion, intermediates
// round-trip through HBM), and nothing is fetched across the routing boundary: the top-k result goes to HBM and
// is read back before the first expert weight is requested.
#include "dataflows/moe_block.hpp"
#include "dataflows/sbuf_budget.hpp"

namespace stasim {
namespace {

constexpr const char* kRoundTrip = "intermediate";

class XlaCore {
 public:
  XlaCore(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner)
      : ctx_(ctx), b_(ctx.b), in_(in), combiner_(combiner), core_(core), c_(static_cast<std::uint8_t>(core)) {
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
      OpId gate_out = kNoOp;
      if (m.gated) {
        gate_out = projection_kernel(ring, en + ".gate", T, Deps{prev, after_route[0], after_route[1]});
        prev = gate_out;
      }
      OpId up_out = projection_kernel(ring, en + ".up", T, Deps{prev, after_route[0], after_route[1]});
      prev = up_out;
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

  DecodeContext& ctx_;
  KernelBuilder& b_;
  const MoeInputs& in_;
  DownCombiner& combiner_;
  std::uint32_t core_;
  std::uint8_t c_;
  std::uint64_t i_rank_ = 0;
  std::uint32_t i_cols_ = 0;
};

}  // namespace

void xla_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) XlaCore(ctx, c, in, combiners[c]).build();
}

}  // namespace stasim
