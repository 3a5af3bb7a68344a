#include "dataflows/down_combiner.hpp"

#include <algorithm>

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;  // FP32 columns of one PSUM bank per partition (2 KiB)

}  // namespace

DownCombiner::DownCombiner(DecodeContext& ctx, std::uint32_t core, const std::string& block, std::uint32_t h_cols,
                           std::uint32_t tokens)
    : ctx_(ctx), core_(static_cast<std::uint8_t>(core)), block_(block), schedule_(ctx.options.down),
      h_cols_(h_cols ? h_cols : ctx.hidden), tokens_(tokens ? tokens : ctx.tokens) {}

std::uint32_t DownCombiner::running_sum_banks() const {
  if (schedule_.accumulate != Accumulate::psum) return 0;
  if (schedule_.stationary == Stationary::weight) {
    std::uint32_t tiles_per_bank = std::max<std::uint32_t>(1, kBankColumns / tokens_);
    return static_cast<std::uint32_t>(ceil_div(h_tiles(), tiles_per_bank));
  }
  return static_cast<std::uint32_t>(ceil_div(h_cols_, kBankColumns));
}

PsumPlan& DownCombiner::plan(const PsumRoles& extra) {
  if (!plan_) {
    PsumRoles roles = extra;
    roles.running_sum = running_sum_banks();
    // A running sum accumulates in its own banks; the per-expert down groups only exist when draining to SBUF.
    roles.down = schedule_.accumulate == Accumulate::psum ? 0 : extra.down;
    plan_ = std::make_unique<PsumPlan>(ctx_.b, core_, roles);
  }
  return *plan_;
}

Accumulator DownCombiner::open(PsumRole role, const std::string& name) {
  if (plan_) return plan_->open(role, label(core_, name));
  return ctx_.b.open_accumulator(core_, label(core_, name));
}

Accumulator DownCombiner::open_at(PsumRole role, std::uint32_t index, const std::string& name) {
  if (plan_) return plan_->open_at(role, index, label(core_, name));
  return ctx_.b.open_accumulator(core_, label(core_, name));
}

OpId DownCombiner::scale_add(OpId from_psum, const Accumulator* acc, std::uint32_t free, std::uint32_t partitions,
                             const std::string& name) {
  KernelBuilder& b = ctx_.b;
  // selective_expert_impl.py: the down output is drained, multiplied by the affinity (tensor_scalar) and added
  // to the SBUF accumulator (tensor_tensor); the first expert's is the accumulator.
  OpId scaled = b.compute(Engine::vector, OpKind::tensor_scalar, core_, free, partitions, {from_psum}, "combine",
                          label(core_, name + ".scale"), true, acc, Dtype::fp32);
  if (last_combine_ == kNoOp) return scaled;
  return b.compute(Engine::vector, OpKind::tensor_tensor, core_, free, partitions, {scaled, last_combine_}, "combine",
                   label(core_, name + ".add"), false, nullptr, Dtype::fp32);
}

void DownCombiner::add_expert(const DownInput& in, const std::string& name) {
  std::vector<OpId> readers(in.weights.loads.size(), kNoOp);
  if (schedule_.stationary == Stationary::weight) weight_stationary(in, name, readers);
  else activation_stationary(in, name, readers);
  if (in.weights.ring)
    for (std::size_t l = 0; l < readers.size(); ++l) in.weights.ring->read_by(in.weights.loads[l], readers[l]);
  any_ = true;
}

void DownCombiner::weight_stationary(const DownInput& in, const std::string& name, std::vector<OpId>& readers) {
  KernelBuilder& b = ctx_.b;
  const bool psum = schedule_.accumulate == Accumulate::psum;
  const std::uint32_t T = in.tokens;
  const std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(in.i_cols, 128));
  const std::uint32_t tiles_per_load = std::max<std::uint32_t>(1, in.weights.rows_per_load / 128);
  // The running sum holds every token column of the core; a drained y_e only its own.
  const std::uint32_t tiles_per_bank = std::max<std::uint32_t>(1, kBankColumns / (psum ? tokens_ : T));
  const std::uint32_t banks = static_cast<std::uint32_t>(ceil_div(h_tiles(), tiles_per_bank));
  if (psum && psum_sum_.empty()) {
    for (std::uint32_t bank = 0; bank < banks; ++bank)
      psum_sum_.push_back(plan_ ? b.open_accumulator_at(core_, plan_->running_sum_banks()[bank], label(core_, idx(block_ + ".y_psum", bank)))
                                : b.open_accumulator(core_, label(core_, idx(block_ + ".y_psum", bank)), true));
    psum_last_.assign(banks, kNoOp);
  }
  std::vector<Accumulator> accs = psum_sum_;
  if (!psum)
    for (std::uint32_t bank = 0; bank < banks; ++bank) accs.push_back(open_at(PsumRole::down, bank, idx(name + ".y", bank)));
  std::vector<OpId> last(banks, kNoOp);
  // I outer, H inner (down_projection_lhs_rhs_swap): each loaded row tile feeds every H tile at once, so the
  // matmuls follow the loads.
  for (std::uint32_t it = 0; it < i_tiles; ++it) {
    std::uint32_t load = std::min<std::uint32_t>(it / tiles_per_load, static_cast<std::uint32_t>(in.weights.loads.size()) - 1);
    for (std::uint32_t ht = 0; ht < h_tiles(); ++ht) {
      Deps deps;
      if (ht == 0) deps = Deps{in.p_ready, in.weights.loads[load]};
      std::uint32_t bank = ht / tiles_per_bank;
      last[bank] = b.matmul(core_, std::min<std::uint32_t>(128, in.i_cols - it * 128),
                            std::min<std::uint32_t>(128, h_cols_ - ht * 128), T, true, accs[bank], deps, "down",
                            label(core_, idx(name + ".down", it * h_tiles() + ht)));
      readers[load] = last_matmul_ = last[bank];
    }
  }
  for (std::uint32_t bank = 0; bank < banks; ++bank) {
    if (psum) {
      psum_last_[bank] = last[bank];
      continue;
    }
    std::uint32_t tiles = std::min(h_tiles() - bank * tiles_per_bank, tiles_per_bank);
    last_combine_ = scale_add(last[bank], &accs[bank], tiles * T, 128, idx(name + ".combine", bank));
  }
}

void DownCombiner::activation_stationary(const DownInput& in, const std::string& name, std::vector<OpId>& readers) {
  KernelBuilder& b = ctx_.b;
  const bool psum = schedule_.accumulate == Accumulate::psum;
  const std::uint32_t T = in.tokens;
  const std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(in.i_cols, 128));
  const std::uint32_t tiles_per_load = std::max<std::uint32_t>(1, in.weights.rows_per_load / 128);
  const std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(h_cols_, kBankColumns));
  if (psum && psum_sum_.empty()) {
    for (std::uint32_t nt = 0; nt < n_tiles; ++nt)
      psum_sum_.push_back(plan_ ? b.open_accumulator_at(core_, plan_->running_sum_banks()[nt], label(core_, idx(block_ + ".y_psum", nt)))
                                : b.open_accumulator(core_, label(core_, idx(block_ + ".y_psum", nt)), true));
    psum_last_.assign(n_tiles, kNoOp);
  }
  // Column groups open at once: all of them for the running sum; otherwise as many as the down role has banks
  // (each group's rows are drained before the next group reuses them).
  std::uint32_t group = psum ? n_tiles
                             : std::min(n_tiles, std::max<std::uint32_t>(1, plan_ ? plan_->pool_banks(PsumRole::down)
                                                                                   : ctx_.hw.psum.banks / 2));
  Deps rows;
  for (std::uint32_t g0 = 0; g0 < n_tiles; g0 += group) {
    std::uint32_t g1 = std::min(n_tiles, g0 + group);
    std::vector<Accumulator> accs;
    for (std::uint32_t nt = g0; nt < g1; ++nt)
      accs.push_back(psum ? psum_sum_[nt] : open_at(PsumRole::down, nt - g0, idx(name + ".y", nt)));
    std::vector<OpId> last(g1 - g0, kNoOp);
    for (std::uint32_t it = 0; it < i_tiles; ++it) {
      std::uint32_t load = std::min<std::uint32_t>(it / tiles_per_load, static_cast<std::uint32_t>(in.weights.loads.size()) - 1);
      for (std::uint32_t nt = g0; nt < g1; ++nt) {
        Deps deps;
        if (nt == g0) deps = Deps{in.p_ready, in.weights.loads[load]};
        last[nt - g0] = b.matmul(core_, std::min<std::uint32_t>(128, in.i_cols - it * 128), T,
                                 std::min<std::uint32_t>(kBankColumns, h_cols_ - nt * kBankColumns), nt == g0, accs[nt - g0],
                                 deps, "down", label(core_, idx(name + ".down", it * n_tiles + nt)));
        readers[load] = last_matmul_ = last[nt - g0];
      }
    }
    for (std::uint32_t nt = g0; nt < g1; ++nt) {
      if (psum) {
        psum_last_[nt] = last[nt - g0];
        continue;
      }
      rows.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_,
                               std::min<std::uint32_t>(kBankColumns, h_cols_ - nt * kBankColumns), T, {last[nt - g0]},
                               "down", label(core_, idx(name + ".rows", nt)), true, &accs[nt - g0], Dtype::fp32));
    }
  }
  if (!psum) last_combine_ = convert_layout(rows, name, T);
}

OpId DownCombiner::convert_layout(const Deps& rows, const std::string& name, std::uint32_t tokens) {
  KernelBuilder& b = ctx_.b;
  // [T, 128] -> [128, T] per H tile; one PSUM bank holds 512 / T of them.
  std::uint32_t per_bank = std::max<std::uint32_t>(1, kBankColumns / tokens);
  OpId out = kNoOp;
  for (std::uint32_t h0 = 0; h0 < h_tiles(); h0 += per_bank) {
    std::uint32_t h1 = std::min(h_tiles(), h0 + per_bank);
    Accumulator acc = open(PsumRole::layout, idx(name + ".layout", h0 / per_bank));
    OpId last = kNoOp;
    for (std::uint32_t ht = h0; ht < h1; ++ht)
      last = b.transpose(core_, tokens, std::min<std::uint32_t>(128, h_cols_ - ht * 128), acc, rows, "down",
                         label(core_, idx(name + ".layout_t", ht)));
    out = last_combine_ = scale_add(last, &acc, (h1 - h0) * tokens, 128, idx(name + ".combine", h0 / per_bank));
  }
  return out;
}

OpId DownCombiner::finish() {
  KernelBuilder& b = ctx_.b;
  if (schedule_.accumulate == Accumulate::psum && !psum_sum_.empty()) {
    if (schedule_.stationary == Stationary::weight) {
      std::uint32_t tiles_per_bank = std::max<std::uint32_t>(1, kBankColumns / tokens_);
      Deps drains;
      for (std::size_t bank = 0; bank < psum_sum_.size(); ++bank) {
        std::uint32_t free = std::min<std::uint32_t>(h_tiles() - static_cast<std::uint32_t>(bank) * tiles_per_bank, tiles_per_bank) * tokens_;
        drains.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_, free, 128, {psum_last_[bank]}, "combine",
                                   label(core_, idx(block_ + ".y_drain", bank)), true, &psum_sum_[bank], Dtype::fp32));
      }
      last_combine_ = drains.size() == 1 ? drains[0]
                                         : b.compute(Engine::vector, OpKind::tensor_copy, core_, 1, 1, drains, "combine",
                                                     label(core_, block_ + ".y_ready"));
    } else {
      Deps rows;
      for (std::size_t nt = 0; nt < psum_sum_.size(); ++nt)
        rows.push_back(b.compute(Engine::vector, OpKind::tensor_copy, core_,
                                 std::min<std::uint32_t>(kBankColumns, h_cols_ - static_cast<std::uint32_t>(nt) * kBankColumns),
                                 tokens_, {psum_last_[nt]}, "combine", label(core_, idx(block_ + ".y_rows", nt)), true,
                                 &psum_sum_[nt], Dtype::fp32));
      last_combine_ = convert_layout(rows, block_ + ".y", tokens_);
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
