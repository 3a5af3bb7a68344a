#include "dataflows/expert_ffn.hpp"

#include <algorithm>

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

OpKind phi_kind() { return OpKind::activation; }  // SiLU, GELU-tanh and ReLU² cost the same on ScalarE (ARCH-v2)

}  // namespace

std::vector<OpId> load_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank,
                                  WeightRing& ring, const Deps& deps, const char* phase, const std::string& name,
                                  std::uint32_t rows, DgeMode dge) {
  const std::uint64_t h = rows ? rows : ctx.hidden;
  std::vector<OpId> loads;
  for (std::uint32_t nt = 0; nt < ceil_div(i_cols, kBankColumns); ++nt) {
    std::uint32_t n = std::min(kBankColumns, i_cols - nt * kBankColumns);
    loads.push_back(ring.load(h * n * 2, 128, ctx.column_run(std::uint64_t(n) * 2, i_rank * 2), deps,
                              phase, label(core, idx(name + ".load", nt)), dge));
  }
  return loads;
}

std::vector<OpId> load_down(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, WeightRing& ring,
                            const Deps& deps, const char* phase, const std::string& name, DgeMode dge) {
  std::vector<OpId> loads;
  for (std::uint32_t ch = 0; ch < ceil_div(i_cols, kDownRowsPerChunk); ++ch) {
    std::uint32_t rows = std::min(kDownRowsPerChunk, i_cols - ch * kDownRowsPerChunk);
    loads.push_back(ring.load(std::uint64_t(rows) * ctx.hidden * 2, std::min<std::uint32_t>(128, rows), 0, deps, phase,
                              label(core, idx(name + ".load_down", ch)), dge));
  }
  return loads;
}

std::uint64_t expert_chunk_bytes(const DecodeContext& ctx, std::uint32_t i_cols) {
  std::uint64_t gate_up = ceil_div(std::uint64_t(ctx.hidden) * std::min(kBankColumns, std::max<std::uint32_t>(i_cols, 1)) * 2, 128);
  std::uint32_t rows = std::min(kDownRowsPerChunk, std::max<std::uint32_t>(i_cols, 1));
  std::uint64_t down = ceil_div(std::uint64_t(rows) * ctx.hidden * 2, std::min<std::uint32_t>(128, rows));
  return std::max(gate_up, down);
}

ProjectionOut dense_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const Deps& deps,
                               const std::vector<OpId>& chunks, WeightRing& ring, const char* phase,
                               const std::string& name, std::uint32_t tokens, PsumPlan* psum, std::uint32_t rows) {
  const std::uint32_t h = rows ? rows : ctx.hidden;
  const std::uint32_t k_tiles = static_cast<std::uint32_t>(ceil_div(h, 128));
  KernelBuilder& b = ctx.b;
  std::uint32_t T = tokens ? tokens : ctx.tokens;
  ProjectionOut out;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols, kBankColumns));
  for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
    std::uint32_t n = std::min(kBankColumns, i_cols - nt * kBankColumns);
    Accumulator acc = psum ? psum->open(PsumRole::gate_up, label(core, idx(name + ".acc", nt)))
                           : b.open_accumulator(c, label(core, idx(name + ".acc", nt)));
    OpId last = kNoOp;
    Deps d;
    d.reserve(deps.size() + 1);
    d.insert(d.end(), deps.begin(), deps.end());
    d.push_back(chunks[nt]);
    // Only a chain's first matmul carries the deps: the rest follow it in the tensor queue anyway.
    for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
      last = b.matmul(c, std::min<std::uint32_t>(128, h - kt * 128), T, n, true, acc, kt == 0 ? d : Deps{}, phase,
                      label(core, idx(name + ".mm", nt * k_tiles + kt)));
    ring.read_by(chunks[nt], last);
    out.accs.push_back(acc);
    out.ready.push_back(last);
  }
  return out;
}

OpId activation_product(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const ProjectionOut* gate,
                        const ProjectionOut& up, bool scale, const std::string& name, std::uint32_t tokens,
                        PsumPlan* layout) {
  KernelBuilder& b = ctx.b;
  std::uint32_t T = tokens ? tokens : ctx.tokens;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  const char* phase = "act";
  Deps products;
  for (std::size_t nt = 0; nt < up.ready.size(); ++nt) {
    std::uint32_t n = std::min<std::uint32_t>(kBankColumns, i_cols - static_cast<std::uint32_t>(nt) * kBankColumns);
    if (gate) {
      OpId phi = b.compute(Engine::scalar, phi_kind(), c, n, T, {gate->ready[nt]}, phase,
                           label(core, idx(name + ".phi", nt)), gate->in_psum, gate->in_psum ? &gate->accs[nt] : nullptr);
      products.push_back(b.compute(Engine::vector, OpKind::tensor_tensor, c, n, T, {phi, up.ready[nt]}, phase,
                                   label(core, idx(name + ".mul", nt)), up.in_psum, up.in_psum ? &up.accs[nt] : nullptr));
    } else {
      products.push_back(b.compute(Engine::scalar, phi_kind(), c, n, T, {up.ready[nt]}, phase,
                                   label(core, idx(name + ".phi", nt)), up.in_psum, up.in_psum ? &up.accs[nt] : nullptr));
    }
  }
  // p [T, I_c] -> p^T [I_c, T]: one TensorE transpose per 128 columns, drained to SBUF (scaled by a_e if asked).
  std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(i_cols, 128));
  Accumulator acc = layout ? layout->open(PsumRole::layout, label(core, name + ".pT"))
                           : b.open_accumulator(c, label(core, name + ".pT"));
  OpId last = kNoOp;
  for (std::uint32_t it = 0; it < i_tiles; ++it)
    last = b.transpose(c, T, std::min<std::uint32_t>(128, i_cols - it * 128), acc, products, phase,
                       label(core, idx(name + ".transpose", it)));
  return b.compute(Engine::vector, scale ? OpKind::tensor_scalar : OpKind::tensor_copy, c, i_tiles * T,
                   std::min<std::uint32_t>(128, i_cols), {last}, phase, label(core, name + ".pT_drain"), true, &acc);
}

}  // namespace stasim
