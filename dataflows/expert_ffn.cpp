#include "dataflows/expert_ffn.hpp"

#include <algorithm>

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

OpKind phi_kind() { return OpKind::activation; }  // SiLU, GELU-tanh and ReLU² cost the same on ScalarE (A1)

}  // namespace

std::vector<OpId> load_projection(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint64_t i_rank,
                                  WeightRing& ring, const Deps& deps, const char* phase, const std::string& name) {
  std::vector<OpId> loads;
  for (std::uint32_t nt = 0; nt < ceil_div(i_cols, kBankColumns); ++nt) {
    std::uint32_t n = std::min(kBankColumns, i_cols - nt * kBankColumns);
    loads.push_back(ring.load(std::uint64_t(ctx.hidden) * n * 2, 128, ctx.column_run(std::uint64_t(n) * 2, i_rank * 2), deps,
                              phase, label(core, idx(name + ".load", nt))));
  }
  return loads;
}

std::vector<OpId> load_down(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, WeightRing& ring,
                            const Deps& deps, const char* phase, const std::string& name) {
  std::vector<OpId> loads;
  for (std::uint32_t ch = 0; ch < ceil_div(i_cols, kDownRowsPerChunk); ++ch) {
    std::uint32_t rows = std::min(kDownRowsPerChunk, i_cols - ch * kDownRowsPerChunk);
    loads.push_back(ring.load(std::uint64_t(rows) * ctx.hidden * 2, std::min<std::uint32_t>(128, rows), 0, deps, phase,
                              label(core, idx(name + ".load_down", ch))));
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
                               const std::string& name, std::uint32_t tokens) {
  KernelBuilder& b = ctx.b;
  std::uint32_t T = tokens ? tokens : ctx.tokens;
  ProjectionOut out;
  std::uint8_t c = static_cast<std::uint8_t>(core);
  std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols, kBankColumns));
  for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
    std::uint32_t n = std::min(kBankColumns, i_cols - nt * kBankColumns);
    Accumulator acc = b.open_accumulator(c, label(core, idx(name + ".acc", nt)));
    OpId last = kNoOp;
    Deps d;
    d.reserve(deps.size() + 1);
    d.insert(d.end(), deps.begin(), deps.end());
    d.push_back(chunks[nt]);
    // Only a chain's first matmul carries the deps: the rest follow it in the tensor queue anyway.
    for (std::uint32_t kt = 0; kt < ctx.h_tiles; ++kt)
      last = b.matmul(c, 128, T, n, true, acc, kt == 0 ? d : Deps{}, phase,
                      label(core, idx(name + ".mm", nt * ctx.h_tiles + kt)));
    ring.read_by(chunks[nt], last);
    out.accs.push_back(acc);
    out.ready.push_back(last);
  }
  return out;
}

OpId activation_product(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, const ProjectionOut* gate,
                        const ProjectionOut& up, bool scale, const std::string& name, std::uint32_t tokens) {
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
  Accumulator acc = b.open_accumulator(c, label(core, name + ".pT"));
  OpId last = kNoOp;
  for (std::uint32_t it = 0; it < i_tiles; ++it)
    last = b.transpose(c, T, std::min<std::uint32_t>(128, i_cols - it * 128), acc, products, phase,
                       label(core, idx(name + ".transpose", it)));
  return b.compute(Engine::vector, scale ? OpKind::tensor_scalar : OpKind::tensor_copy, c, i_tiles * T,
                   std::min<std::uint32_t>(128, i_cols), {last}, phase, label(core, name + ".pT_drain"), true, &acc);
}

DownCombiner::DownCombiner(DecodeContext& ctx, std::uint32_t core, const std::string& block)
    : ctx_(ctx), core_(static_cast<std::uint8_t>(core)), block_(block), schedule_(ctx.options.down) {}

bool DownCombiner::wants_scaled_input() const { return schedule_.accumulate == Accumulate::psum; }

std::vector<Accumulator> DownCombiner::open_outputs(const std::string& name, std::uint32_t columns, bool long_lived) {
  std::vector<Accumulator> accs;
  for (std::uint32_t i = 0; i < ceil_div(columns, kBankColumns); ++i)
    accs.push_back(ctx_.b.open_accumulator(core_, label(core_, idx(name, i)), long_lived));
  return accs;
}

// [T, H] rows in SBUF -> [128, H/128 x T]: one TensorE transpose per 128 columns. Returns the transposes' group
// drained by the caller through the returned accumulator's last op.
OpId DownCombiner::convert_layout(const std::vector<OpId>& rows_ready, const std::string& name, std::uint32_t tokens) {
  KernelBuilder& b = ctx_.b;
  Accumulator acc = b.open_accumulator(core_, label(core_, name + ".layout"));
  OpId last = kNoOp;
  for (std::uint32_t ht = 0; ht < ctx_.h_tiles; ++ht)
    last = b.transpose(core_, tokens, 128, acc, rows_ready, "down", label(core_, idx(name + ".layout_t", ht)));
  Deps d{last, last_combine_};
  OpId combine = b.compute(Engine::vector, OpKind::tensor_tensor, core_, ctx_.h_tiles * tokens, 128, d, "combine",
                           label(core_, name + ".combine"), true, &acc, Dtype::fp32);
  return combine;
}

void DownCombiner::add_expert(std::uint32_t i_cols, OpId p_t, const std::vector<OpId>& down, WeightRing& ring,
                              const std::string& name, std::uint32_t tokens) {
  KernelBuilder& b = ctx_.b;
  std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(i_cols, 128));
  std::uint32_t T = tokens ? tokens : ctx_.tokens;
  constexpr std::uint32_t kTilesPerChunk = kDownRowsPerChunk / 128;
  std::vector<OpId> chunk_reader(down.size(), kNoOp);  // the last matmul reading each chunk
  auto deps_of = [&](std::uint32_t it) { return Deps{p_t, down[it / kTilesPerChunk]}; };
  if (schedule_.stationary == Stationary::weight) {
    // W_down [128 of I, 128 of H] stationary, p^T [I, T] moving: output [128 of H, T] per H tile, already in the
    // combine's layout. One PSUM bank holds 512 / T H-tiles (T of the batch for the running sum across experts).
    bool psum = schedule_.accumulate == Accumulate::psum;
    std::uint32_t tiles_per_bank = std::max<std::uint32_t>(1, kBankColumns / std::max(T, psum ? ctx_.tokens : T));
    if (psum && psum_sum_.empty()) sum_tiles_per_bank_ = tiles_per_bank;
    if (psum) tiles_per_bank = sum_tiles_per_bank_;
    std::uint32_t banks = static_cast<std::uint32_t>(ceil_div(ctx_.h_tiles, tiles_per_bank));
    if (psum && psum_sum_.empty()) psum_sum_ = open_outputs(block_ + ".y_psum", banks * kBankColumns, true);
    std::vector<Accumulator> accs = psum ? psum_sum_ : open_outputs(name + ".y", banks * kBankColumns, false);
    psum_last_.resize(accs.size(), kNoOp);
    for (std::uint32_t bank = 0; bank < banks; ++bank) {
      OpId last = kNoOp;
      for (std::uint32_t ht = bank * tiles_per_bank; ht < std::min(ctx_.h_tiles, (bank + 1) * tiles_per_bank); ++ht)
        for (std::uint32_t it = 0; it < i_tiles; ++it) {
          // Every chunk was waited for by the first H tile's matmuls; later ones follow in the queue.
          last = b.matmul(core_, std::min<std::uint32_t>(128, i_cols - it * 128), 128, T, true, accs[bank],
                          ht == 0 ? deps_of(it) : Deps{}, "down", label(core_, idx(name + ".down", ht * i_tiles + it)));
          chunk_reader[it / kTilesPerChunk] = last;
        }
      if (psum) {
        psum_last_[bank] = last;
      } else {
        std::uint32_t free = std::min(ctx_.h_tiles - bank * tiles_per_bank, tiles_per_bank) * T;
        last_combine_ = b.compute(Engine::vector, OpKind::tensor_tensor, core_, free, 128, {last, last_combine_},
                                  "combine", label(core_, idx(name + ".combine", bank)), true, &accs[bank], Dtype::fp32);
      }
    }
  } else {
    // p^T [128 of I, T] stationary, W_down [128 of I, 512 of H] moving: fewer, wider matmuls; output [T, H] rows,
    // one PSUM bank per 512 columns. Accumulating in PSUM holds all H/512 banks across the experts; in SBUF the
    // columns are done in groups of at most half the banks, each drained before the next.
    std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(ctx_.hidden, kBankColumns));
    bool psum = schedule_.accumulate == Accumulate::psum;
    if (psum && psum_sum_.empty()) psum_sum_ = open_outputs(block_ + ".y_psum", ctx_.hidden, true);
    psum_last_.resize(psum_sum_.size(), kNoOp);
    std::uint32_t group = psum ? n_tiles : std::min(n_tiles, std::max<std::uint32_t>(1, ctx_.hw.psum.banks / 2));
    std::vector<OpId> rows;
    for (std::uint32_t g0 = 0; g0 < n_tiles; g0 += group) {
      std::uint32_t g1 = std::min(n_tiles, g0 + group);
      std::vector<Accumulator> accs;
      if (psum) accs.assign(psum_sum_.begin() + g0, psum_sum_.begin() + g1);
      else
        for (std::uint32_t nt = g0; nt < g1; ++nt) accs.push_back(b.open_accumulator(core_, label(core_, idx(name + ".y", nt))));
      std::vector<OpId> last(g1 - g0, kNoOp);
      for (std::uint32_t it = 0; it < i_tiles; ++it)
        for (std::uint32_t nt = g0; nt < g1; ++nt) {
          last[nt - g0] = b.matmul(core_, std::min<std::uint32_t>(128, i_cols - it * 128), T,
                                   std::min<std::uint32_t>(kBankColumns, ctx_.hidden - nt * kBankColumns), nt == g0,
                                   accs[nt - g0], g0 == 0 && nt == g0 ? deps_of(it) : Deps{}, "down",
                                   label(core_, idx(name + ".down", it * n_tiles + nt)));
          chunk_reader[it / kTilesPerChunk] = last[nt - g0];
        }
      for (std::uint32_t nt = g0; nt < g1; ++nt) {
        if (psum) {
          psum_last_[nt] = last[nt - g0];
        } else {
          // Rows to SBUF, then the layout conversion the weight-stationary form does not need.
          rows.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_,
                                   std::min<std::uint32_t>(kBankColumns, ctx_.hidden - nt * kBankColumns), T,
                                   {last[nt - g0]}, "down", label(core_, idx(name + ".rows", nt)), true, &accs[nt - g0],
                                   Dtype::fp32));
        }
      }
    }
    if (!psum) last_combine_ = convert_layout(rows, name, T);
  }
  for (std::size_t ch = 0; ch < down.size(); ++ch) ring.read_by(down[ch], chunk_reader[ch]);
  any_ = true;
}

OpId DownCombiner::finish() {
  KernelBuilder& b = ctx_.b;
  if (schedule_.accumulate == Accumulate::psum && !psum_sum_.empty()) {
    if (schedule_.stationary == Stationary::weight) {
      std::uint32_t tiles_per_bank = sum_tiles_per_bank_;
      Deps drains;
      for (std::size_t bank = 0; bank < psum_sum_.size(); ++bank) {
        std::uint32_t free = std::min<std::uint32_t>(ctx_.h_tiles - static_cast<std::uint32_t>(bank) * tiles_per_bank,
                                                     tiles_per_bank) * ctx_.tokens;
        drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_, free, 128, {psum_last_[bank]}, "combine",
                                   label(core_, idx(block_ + ".y_drain", bank)), true, &psum_sum_[bank], Dtype::fp32));
      }
      last_combine_ = drains.size() == 1 ? drains[0]
                                         : b.compute(Engine::vector, OpKind::tensor_copy, core_, 1, 1, drains, "combine",
                                                     label(core_, block_ + ".y_ready"));
    } else {
      std::vector<OpId> rows;
      for (std::size_t nt = 0; nt < psum_sum_.size(); ++nt)
        rows.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_,
                                 std::min<std::uint32_t>(kBankColumns, ctx_.hidden - static_cast<std::uint32_t>(nt) * kBankColumns),
                                 ctx_.tokens, {psum_last_[nt]}, "combine", label(core_, idx(block_ + ".y_rows", nt)), true,
                                 &psum_sum_[nt], Dtype::fp32));
      last_combine_ = convert_layout(rows, block_ + ".y", ctx_.tokens);
    }
    psum_sum_.clear();
  }
  if (!partials_.empty()) {
    Deps d = partials_;
    d.push_back(last_combine_);
    last_combine_ = b.compute(Engine::vector, OpKind::tensor_tensor, core_, ctx_.h_tiles * ctx_.tokens, 128, d, "combine",
                              label(core_, block_ + ".add_partials"), false, nullptr, Dtype::fp32);
    partials_.clear();
    any_ = true;
  }
  if (!any_ && last_combine_ == kNoOp)
    last_combine_ = b.compute(Engine::vector, OpKind::memset, core_, ctx_.h_tiles * ctx_.tokens, 128, {}, "combine",
                              label(core_, block_ + ".y_zero"));
  return last_combine_;
}

}  // namespace stasim
