// W4A8 (docs/cardan.md "Baselines and variants"): the routed experts' gate/up weights in MXFP4 (4-bit elements,
// one 8-bit scale per 32), the hidden state quantized to MX once per layer, gate/up on the MX matmul
// (hardware-facts.md §2: nc_matmul_mx contracts mx_k_factor x 128 rows in the cycles of a BF16 matmul). The MX
// matmul writes a packed layout only MX ops read, so each activated expert's gate/up output is converted on
// chip before φ and the BF16 down projection. Elements and scale tensors arrive by separate DMAs.
#include <algorithm>

#include "dataflows/moe_block.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;
constexpr std::uint32_t kMxBlock = 32;  // elements per MX scale

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

}  // namespace

void w4a8_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  const ModelSpec& m = ctx.model;
  std::uint32_t mx_k = ctx.hw.tensor.rows * ctx.hw.tensor.mx_k_factor;
  if (mx_k == 0)
    throw InputError("dataflow w4a8 needs MX matmuls, but " + ctx.hw.name +
                     " has tensor.mx_k_factor = 0 (NeuronCore-v4 / trn3 supports them)");
  std::uint64_t i_rank = m.intermediate_per_rank(ctx.deployment.tp);
  for (std::uint32_t core = 0; core < ctx.lnc; ++core) {
    std::uint32_t i_cols = ctx.share(i_rank, core);
    if (i_cols == 0) continue;
    KernelBuilder& b = ctx.b;
    std::uint8_t c = static_cast<std::uint8_t>(core);
    DownCombiner& combiner = combiners[core];
    std::uint32_t count = ctx.experts.size();
    std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols, kBankColumns));
    std::uint32_t k_tiles = static_cast<std::uint32_t>(ceil_div(ctx.hidden, mx_k));
    // QuantizeMX of the normalized hidden on VectorE, once per layer for all experts.
    OpId h_mx = b.compute(Engine::vector, OpKind::tensor_scalar, c, ctx.h_tiles * ctx.tokens, 128, {in.normed[core]},
                          "gate_up", label(core, "experts.h_quantize_mx"));
    std::uint32_t per_expert = static_cast<std::uint32_t>((m.gated ? 2 : 1) * n_tiles + ceil_div(i_cols, kDownRowsPerChunk));
    std::uint32_t in_flight = ctx.options.weight_buffers == 0 ? count : std::min(ctx.options.weight_buffers, count);
    WeightRing ring(ctx, core, "experts.w", expert_chunk_bytes(ctx, i_cols), in_flight * per_expert, 0.6);
    std::uint64_t scale_slot = ceil_div(std::uint64_t(ctx.hidden / kMxBlock) * std::min(kBankColumns, i_cols), 128);
    WeightRing scales(ctx, core, "experts.mx_scales", scale_slot, in_flight * (m.gated ? 2 : 1) * n_tiles, 0.05);
    Deps start{in.topk[core]};
    bool scale_input = combiner.wants_scaled_input();
    for (std::uint32_t e = 0; e < count; ++e) {
      std::string en = "e" + std::to_string(e);
      std::uint32_t T = ctx.experts.groups[e].padded_tokens;
      Deps drains;
      for (const char* proj : {"gate", "up"}) {
        if (!m.gated && std::string(proj) == "gate") continue;
        std::string pn = en + "." + proj;
        for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
          std::uint32_t n = std::min(kBankColumns, i_cols - nt * kBankColumns);
          OpId w = ring.load(std::uint64_t(ctx.hidden) * n / 2, 128, ctx.column_run(n / 2, i_rank / 2), start, "gate_up",
                             label(core, idx(pn + ".load", nt)));
          OpId s = scales.load(std::uint64_t(ctx.hidden / kMxBlock) * n, 128, 0, start, "gate_up",
                               label(core, idx(pn + ".load_scales", nt)));
          Accumulator acc = b.open_accumulator(c, label(core, idx(pn + ".acc", nt)));
          OpId last = kNoOp;
          for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
            last = b.matmul(c, std::min(mx_k, ctx.hidden - kt * mx_k), T, n, true, acc, kt == 0 ? Deps{h_mx, w, s} : Deps{},
                            "gate_up", label(core, idx(pn + ".mx_mm", nt * k_tiles + kt)), Dtype::mxfp4);
          ring.read_by(w, last);
          scales.read_by(s, last);
          drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, n, T, {last}, "gate_up",
                                     label(core, idx(pn + ".mx_drain", nt)), true, &acc, Dtype::fp32));
        }
      }
      // The packed MX output to plain BF16, gate and up of this expert in one pass.
      OpId converted = b.compute(Engine::vector, OpKind::tensor_copy, c, (m.gated ? 2 : 1) * i_cols, T, drains, "act",
                                 label(core, en + ".mx_convert"), false, nullptr, Dtype::fp32);
      ProjectionOut gate, up;
      gate.in_psum = up.in_psum = false;
      gate.ready.assign(n_tiles, converted);
      up.ready.assign(n_tiles, converted);
      std::vector<OpId> down_w = load_down(ctx, core, i_cols, ring, start, "down", en);
      OpId p_t = activation_product(ctx, core, i_cols, m.gated ? &gate : nullptr, up, scale_input, en, T);
      combiner.add_expert(i_cols, p_t, down_w, ring, en, T);
    }
  }
}

}  // namespace stasim
