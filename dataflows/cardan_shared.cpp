#include "dataflows/cardan_shared.hpp"

#include <algorithm>

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

}  // namespace

// The partial z = Dᵀh over this core's rows of D (weight-stationary: D [128 of H, 128 of r] stationary, h moving,
// output [r, T] in the layout C_eᵀz needs), drained to SBUF; the caller exchanges and sums the cores' partials.
OpId shared_z(DecodeContext& ctx, std::uint32_t core, std::uint32_t rows, OpId normed, OpId basis,
              const std::string& name) {
  KernelBuilder& b = ctx.b;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t r = static_cast<std::uint32_t>(ctx.representation.r);
  std::uint32_t r_tiles = static_cast<std::uint32_t>(ceil_div(r, 128));
  std::uint32_t row_tiles = static_cast<std::uint32_t>(ceil_div(std::max<std::uint32_t>(rows, 1), 128));
  Accumulator acc = b.open_accumulator(c, label(core, name + ".z_acc"));
  OpId last = kNoOp;
  for (std::uint32_t rt = 0; rt < r_tiles; ++rt)
    for (std::uint32_t kt = 0; kt < row_tiles; ++kt)
      last = b.matmul(c, std::min<std::uint32_t>(128, rows - kt * 128), std::min<std::uint32_t>(128, r - rt * 128),
                      ctx.tokens, true, acc, rt == 0 && kt == 0 ? Deps{normed, basis} : Deps{}, "shared_proj",
                      label(core, idx(name + ".z_mm", rt * row_tiles + kt)));
  OpId z = b.compute(Engine::vector, OpKind::tensor_copy, c, r_tiles * ctx.tokens, std::min<std::uint32_t>(128, r), {last},
                     "shared_proj", label(core, name + ".z_drain"), true, &acc, Dtype::fp32);
  return z;
}

// T = h_blocksᵀ B per token: h reshaped to [d, H/d x T] stationary per 128 (block, token) rows, B [d, K]
// moving; drained to SBUF (GpSimd cannot read PSUM).
OpId shared_table(DecodeContext& ctx, std::uint32_t core, OpId normed, OpId codebook, const std::string& name) {
  KernelBuilder& b = ctx.b;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t d = static_cast<std::uint32_t>(ctx.representation.d);
  std::uint32_t K = static_cast<std::uint32_t>(ctx.representation.K);
  std::uint32_t blocks = ctx.hidden / d * ctx.tokens;  // (block, token) rows
  OpId reshaped = b.compute(Engine::vector, OpKind::tensor_copy, c, blocks, std::min<std::uint32_t>(d, 128),
                            {normed}, "shared_proj", label(core, name + ".h_blocks"));
  Deps drains;
  for (std::uint32_t bt = 0; bt < ceil_div(blocks, 128); ++bt) {
    for (std::uint32_t kt = 0; kt < ceil_div(K, kBankColumns); ++kt) {
      Accumulator acc = b.open_accumulator(c, label(core, idx(name + ".T_acc", bt)));
      std::uint32_t n = std::min<std::uint32_t>(kBankColumns, K - kt * kBankColumns);
      OpId mm = b.matmul(c, std::min<std::uint32_t>(d, 128), std::min<std::uint32_t>(128, blocks - bt * 128), n, true, acc,
                         {reshaped, codebook}, "shared_proj", label(core, idx(name + ".T_mm", bt)));
      drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, n, std::min<std::uint32_t>(128, blocks - bt * 128),
                                 {mm}, "shared_proj", label(core, idx(name + ".T_drain", bt)), true, &acc));
    }
  }
  return drains.size() == 1 ? drains[0]
                            : b.compute(Engine::vector, OpKind::tensor_copy, c, 1, 1, drains, "shared_proj",
                                        label(core, name + ".T_ready"));
}

}  // namespace stasim
