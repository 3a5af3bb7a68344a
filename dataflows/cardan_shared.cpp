#include "dataflows/cardan_shared.hpp"

#include <algorithm>

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

}  // namespace

OpId shared_z(DecodeContext& ctx, std::uint32_t core, const SharedShape& s, OpId normed, OpId basis, PsumPlan& plan,
              const std::string& name) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  const std::uint32_t k_tiles = static_cast<std::uint32_t>(ceil_div(std::max<std::uint32_t>(s.z_rows, 1), 128));
  const std::uint32_t r_tiles = static_cast<std::uint32_t>(ceil_div(s.r, 128));
  // A PSUM bank holds 512 FP32 columns: r tile rt accumulates into columns [rt T, (rt + 1) T) of its bank.
  const std::uint32_t tiles_per_bank = std::max<std::uint32_t>(1, kBankColumns / std::max<std::uint32_t>(s.tokens, 1));
  Deps drains;
  for (std::uint32_t first = 0; first < r_tiles; first += tiles_per_bank) {
    const std::uint32_t tiles = std::min(tiles_per_bank, r_tiles - first);
    Accumulator acc = plan.open(PsumRole::table, label(core, idx(name + ".z_acc", first / tiles_per_bank)));
    OpId last = kNoOp;
    for (std::uint32_t rt = first; rt < first + tiles; ++rt)
      for (std::uint32_t kt = 0; kt < k_tiles; ++kt)
        last = b.matmul(c, std::min<std::uint32_t>(128, s.z_rows - kt * 128), std::min<std::uint32_t>(128, s.r - rt * 128),
                        s.tokens, true, acc, rt == first && kt == 0 ? Deps{normed, basis} : Deps{}, "shared_proj",
                        label(core, idx(name + ".z_mm", rt * k_tiles + kt)));
    drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, tiles * s.tokens, std::min<std::uint32_t>(128, s.r),
                               {last}, "shared_proj", label(core, idx(name + ".z_drain", first / tiles_per_bank)), true,
                               &acc, Dtype::fp32));
  }
  return drains.size() == 1 ? drains[0]
                            : b.compute(Engine::vector, OpKind::tensor_copy, c, 1, 1, drains, "shared_proj",
                                        label(core, name + ".z_ready"));
}

OpId shared_table(DecodeContext& ctx, std::uint32_t core, const SharedShape& s, OpId normed, OpId codebook,
                  PsumPlan& plan, const std::string& name) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  const std::uint32_t d = static_cast<std::uint32_t>(ctx.representation.d);
  const std::uint32_t K = static_cast<std::uint32_t>(ctx.representation.K);
  // h [128, H/128 x T] -> blocks [d, H/d x T]: d on partitions (a VectorE shuffle of this core's rows).
  OpId reshaped = b.compute(Engine::vector, OpKind::tensor_copy, c, s.blocks * s.tokens, std::min<std::uint32_t>(d, 128),
                            {normed}, "shared_proj", label(core, name + ".h_blocks"));
  const std::uint32_t tokens_per_bank = std::max<std::uint32_t>(1, kBankColumns / std::max<std::uint32_t>(K, 1));
  Deps drains;
  std::uint32_t n = 0;
  for (std::uint32_t b0 = 0; b0 < s.blocks; b0 += 128) {
    std::uint32_t m = std::min<std::uint32_t>(128, s.blocks - b0);
    for (std::uint32_t t0 = 0; t0 < s.tokens; t0 += tokens_per_bank) {
      std::uint32_t t1 = std::min(s.tokens, t0 + tokens_per_bank);
      Accumulator acc = plan.open(PsumRole::table, label(core, idx(name + ".T_acc", n)));
      OpId last = kNoOp;
      for (std::uint32_t t = t0; t < t1; ++t)
        last = b.matmul(c, std::min<std::uint32_t>(d, 128), m, std::min<std::uint32_t>(K, kBankColumns), true, acc,
                        t == t0 ? Deps{reshaped, codebook} : Deps{}, "shared_proj", label(core, idx(name + ".T_mm", n * tokens_per_bank + t - t0)));
      drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, (t1 - t0) * K, m, {last}, "shared_proj",
                                 label(core, idx(name + ".T_drain", n)), true, &acc, table_dtype(ctx.options)));
      ++n;
    }
  }
  return drains.size() == 1 ? drains[0]
                            : b.compute(Engine::vector, OpKind::tensor_copy, c, 1, 1, drains, "shared_proj",
                                        label(core, name + ".T_ready"));
}

}  // namespace stasim
