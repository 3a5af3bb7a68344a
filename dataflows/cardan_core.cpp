#include "dataflows/cardan_core.hpp"

#include <algorithm>

#include "dataflows/expert_kernel.hpp"
#include "dataflows/sbuf_budget.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

std::vector<ExpertGroup> core_groups(const DecodeContext& ctx, std::uint32_t core) {
  if (core >= ctx.experts.cores.size()) return {};
  return loop_items(ctx.experts.cores[core], ctx.options.group_routes);
}

}  // namespace

CardanCore::CardanCore(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner)
    : ctx_(ctx), b_(ctx.b), rep_(ctx.representation), opt_(ctx.options), in_(in), combiner_(combiner),
      core_(core), c_(static_cast<std::uint8_t>(core)), groups_(core_groups(ctx, core)) {
  i_cols_ = static_cast<std::uint32_t>(ctx.model.intermediate_per_rank(ctx.deployment.tp));
  vq_ = rep_.has_vq();
  lr_ = rep_.has_lr();
  r_ = static_cast<std::uint32_t>(rep_.r);
  partial_ = ctx.experts.shard == ShardOn::hidden && ctx.lnc > 1;
  shape_.rows = partial_ ? ctx.share(ctx.hidden, core) : ctx.hidden;
  shape_.blocks = vq_ ? shape_.rows / static_cast<std::uint32_t>(rep_.d) : 0;
  shape_.tokens = core < ctx.experts.cores.size() ? std::max<std::uint32_t>(ctx.experts.cores[core].tokens, 1) : ctx.tokens;
  h_cols_ = shape_.rows;
  // z over all of H, the entries of z split between the cores when they split H: C_eᵀz over this core's r is then
  // a partial sum like the VQ part over its blocks, and it crosses to the other cores inside the partial gate/up
  // rows they exchange anyway, so z itself never has to (the same bytes of D per core as a split of its rows).
  shape_.z_rows = ctx.hidden;
  shape_.r = partial_ ? ctx.share(r_, core) : r_;
  r_ = shape_.r;
  if (ctx.model.gated) projections_.push_back({"gate", rep_.gate});
  projections_.push_back({"up", rep_.up});
  if (!active()) return;
  PsumRoles roles;
  roles.table = 1;
  roles.lr = opt_.joint_psum_accumulation || !(vq_ && lr_) ? 0 : 1;
  roles.layout = 1;
  plan_ = &combiner_.plan(roles);
  std::size_t n = groups_.size(), p = projections_.size();
  idx_load_.assign(n, std::vector<OpId>(p, kNoOp));
  coef_load_ = gathered_ = idx_load_;
  dense_load_.assign(n, std::vector<std::vector<OpId>>(p));
  down_.assign(n, {});
  outs_.assign(n, std::vector<ProjectionOut>(p));
  sent_rows_.assign(n, std::vector<OpId>(p * ctx.lnc, kNoOp));
  rounds_.assign(opt_.reuse_shared_projections ? 1 : std::max<std::size_t>(n, 1), Round{});
  for (Round& r : rounds_) r.z = r.table = std::vector<OpId>(p, kNoOp);
}

void CardanCore::load_shared() {
  Deps start = opt_.overlap_windows ? ctx_.static_deps(core_) : Deps{in_.topk[core_]};
  for (const Projection& p : projections_) {
    if (!p.compressed) {
      basis_.push_back(kNoOp);
      codebook_.push_back(kNoOp);
      continue;
    }
    OpId d = kNoOp, bk = kNoOp;
    if (lr_) {
      // D [H, r] in the kernel's tile layout: this core's columns of r, all of H.
      std::uint64_t bytes = std::uint64_t(shape_.z_rows) * std::max<std::uint32_t>(r_, 1) * 2;
      d = b_.dma(c_, bytes, 128, Location::hbm, Location::sbuf, start, "shared_proj", label(core_, p.name + ".load_D"));
      b_.use(d, b_.buffer(c_, label(core_, p.name + ".D"), ceil_div(bytes, 128)));
    }
    if (vq_)
      bk = b_.dma(c_, std::uint64_t(rep_.K) * rep_.d * 2, std::min<std::uint32_t>(static_cast<std::uint32_t>(rep_.d), 128),
                  Location::hbm, Location::sbuf, start, "shared_proj", label(core_, p.name + ".load_B"));
    basis_.push_back(d);
    codebook_.push_back(bk);
  }
}

void CardanCore::compute_round(std::uint32_t round) {
  if (round >= rounds_.size()) return;
  Round& r = rounds_[round];
  for (std::size_t p = 0; p < projections_.size(); ++p) {
    if (!projections_[p].compressed) continue;
    std::string pn = projections_[p].name + (opt_.reuse_shared_projections ? "" : ".e" + std::to_string(round));
    if (lr_) {
      r.z[p] = shared_z(ctx_, core_, shape_, in_.normed[core_], basis_[p], *plan_, pn);
      ctx_.static_read(core_, r.z[p]);
    }
    if (vq_ && round > 0 && !opt_.recompute_table) {
      // Without reuse only z is recomputed per expert: every expert's selections read the table of round 0.
      r.table[p] = rounds_[0].table[p];
    } else if (vq_) {
      r.table[p] = shared_table(ctx_, core_, shape_, in_.normed[core_], codebook_[p], *plan_, pn);
      ctx_.static_read(core_, r.table[p]);
    }
  }
}

void CardanCore::prepare_private() {
  private_start_ = Deps{in_.topk[core_]};
  if (!opt_.overlap_windows)  // without window 2 the private parts wait for the shared projections
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      private_start_.push_back(rounds_[0].z[p]);
      private_start_.push_back(rounds_[0].table[p]);
    }
  std::uint64_t slot = std::max<std::uint64_t>({ceil_div(j_bytes(), 128), ceil_div(c_bytes(), 128), 1});
  private_ring_ = std::make_unique<WeightRing>(ctx_, core_, "experts.private", slot,
                                               static_cast<std::uint32_t>(2 * projections_.size() * groups_.size()), kPrivateShare);
}

bool CardanCore::interleaves_loads() const { return ctx_.routed_dge() == DgeMode::swdge; }

void CardanCore::load_private(std::uint32_t e) {
  if (e >= groups_.size()) return;
  const Deps& start = private_start_;
  for (std::size_t p = 0; p < projections_.size(); ++p) {
    std::string pn = "e" + std::to_string(e) + "." + projections_[p].name;
    if (!projections_[p].compressed) {
      if (!down_ring_) down_ring_ = std::make_unique<WeightRing>(ctx_, core_, "experts.w", expert_chunk_bytes(ctx_, i_cols_),
                                                                 0, kExpertWeightShare);
      dense_load_[e][p] = load_projection(ctx_, core_, i_cols_, i_cols_, *down_ring_, start, "gate_up", pn, shape_.rows,
                                          ctx_.routed_dge());
      continue;
    }
    // J_e and C_e in the kernel's tile layout: this core's blocks (rows of J) and its columns of C are
    // contiguous.
    if (vq_)
      idx_load_[e][p] = private_ring_->load(j_bytes(), std::min<std::uint32_t>(128, std::max<std::uint32_t>(shape_.blocks, 1)), 0,
                                            start, "gather", label(core_, pn + ".load_J"), ctx_.private_dge());
    if (lr_ && r_ > 0)
      coef_load_[e][p] = private_ring_->load(c_bytes(), std::min<std::uint32_t>(128, r_), 0, start, "lr",
                                             label(core_, pn + ".load_C"), ctx_.private_dge());
  }
}

void CardanCore::load_down(std::uint32_t e) {
  if (!down_ring_)
    down_ring_ = std::make_unique<WeightRing>(ctx_, core_, "experts.w", std::uint64_t(h_cols_) * 2,
                                              static_cast<std::uint32_t>(groups_.size() * ceil_div(i_cols_, 128)), kExpertWeightShare);
  // Window 3: the down weights' addresses are known after routing too; they stream while GpSimd gathers and
  // the tensor engine computes C_eᵀz. Without window 3 finish_expert loads them after gate/up.
  if (!opt_.overlap_windows || e >= groups_.size()) return;
  down_[e] = load_down_tiles(ctx_, core_, i_cols_, h_cols_, *down_ring_, {in_.topk[core_]}, "e" + std::to_string(e));
}

std::uint32_t CardanCore::gather_elements(std::uint32_t e) const {
  // J_e [blocks, I] with its blocks on the partitions (each partition gathers from its own rows of T); one index
  // per (block, column) fetches the T_e tokens' code words, adjacent in T's [b, k, t] layout.
  return static_cast<std::uint32_t>(ceil_div(shape_.blocks, 128)) * i_cols_ * groups_[e].tokens;
}

void CardanCore::gather(std::uint32_t first, std::uint32_t count, const std::string& name) {
  if (!vq_ || first >= groups_.size()) return;
  count = std::min<std::uint32_t>(count, static_cast<std::uint32_t>(groups_.size()) - first);
  const std::uint32_t partitions = std::min<std::uint32_t>(128, std::max<std::uint32_t>(shape_.blocks, 1));
  for (std::size_t p = 0; p < projections_.size(); ++p) {
    if (!projections_[p].compressed) continue;
    Deps d;
    std::uint64_t elements = 0;
    for (std::uint32_t e = first; e < first + count; ++e) {
      d.push_back(rounds_[round_of(e)].table[p]);
      d.push_back(idx_load_[e][p]);
      elements += gather_elements(e);
    }
    // nc_n_gather: per-partition selections, J_e stored uint8 (widened to uint32 first); T_e elements per index.
    OpId g = b_.gather(c_, static_cast<std::uint32_t>(elements), partitions,
                       static_cast<std::uint16_t>(groups_[first].tokens), 1, d, "gather",
                       label(core_, name + "." + projections_[p].name + ".gather"), table_dtype(opt_));
    for (std::uint32_t e = first; e < first + count; ++e) {
      gathered_[e][p] = g;
      private_ring_->read_by(idx_load_[e][p], g);
    }
  }
}

ProjectionOut CardanCore::compressed_projection(std::uint32_t e, std::size_t p, const std::string& pn) {
  ProjectionOut out;
  const std::uint32_t T = groups_[e].tokens;
  const std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols_, kBankColumns));
  const std::uint32_t b_tiles = static_cast<std::uint32_t>(ceil_div(shape_.blocks, 128));
  const std::uint32_t r_tiles = static_cast<std::uint32_t>(ceil_div(r_, 128));
  const OpId z = lr_ ? rounds_[round_of(e)].z[p] : kNoOp;
  const bool joint = opt_.joint_psum_accumulation || !(vq_ && lr_);
  for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
    std::uint32_t c0 = nt * kBankColumns, n = std::min(kBankColumns, i_cols_ - c0);
    // C_eᵀz covers every column (with H split this core's share of r gives a partial sum).
    const bool has_lr = lr_ && r_ > 0;
    if (!vq_ && !has_lr) {  // LR alone, H split, r smaller than the cores: this core holds none of r
      out.accs.push_back(Accumulator{});
      out.ready.push_back(b_.compute(Engine::vector, OpKind::memset, c_, n, T, {}, "lr", label(core_, idx(pn + ".zero", nt)),
                                     false, nullptr, Dtype::fp32));
      continue;
    }
    Accumulator vq_acc, lr_acc;
    if (joint) {
      vq_acc = lr_acc = plan_->open(PsumRole::gate_up, label(core_, idx(pn + ".acc", nt)));
    } else {
      vq_acc = plan_->open(PsumRole::gate_up, label(core_, idx(pn + ".vq_acc", nt)));
      if (has_lr) lr_acc = plan_->open(PsumRole::lr, label(core_, idx(pn + ".lr_acc", nt)));
    }
    OpId vq_last = kNoOp, lr_last = kNoOp;
    // Σ_b of the gathered code words: a ones vector stationary (loaded once), the gathered rows moving (in T's type).
    for (std::uint32_t bt = 0; vq_ && bt < b_tiles; ++bt)
      vq_last = b_.matmul(c_, std::min<std::uint32_t>(128, shape_.blocks - bt * 128), T, n, bt == 0, vq_acc,
                          bt == 0 ? Deps{gathered_[e][p]} : Deps{}, "gather", label(core_, idx(pn + ".vq_sum", nt * b_tiles + bt)),
                          table_dtype(opt_));
    // C_eᵀ z: z [r, T] stationary per 128 rows, this core's columns of C_e moving.
    for (std::uint32_t rt = 0; has_lr && rt < r_tiles; ++rt) {
      lr_last = b_.matmul(c_, std::min<std::uint32_t>(128, r_ - rt * 128), T, n, true, lr_acc,
                          rt == 0 ? Deps{z, coef_load_[e][p]} : Deps{}, "lr", label(core_, idx(pn + ".lr_mm", nt * r_tiles + rt)));
      private_ring_->read_by(coef_load_[e][p], lr_last);
    }
    if (joint) {
      out.accs.push_back(vq_ ? vq_acc : lr_acc);
      out.ready.push_back(lr_last != kNoOp ? lr_last : vq_last);
      continue;
    }
    // Each part writes a standalone vector to SBUF before they are added (no joint accumulation).
    OpId a = b_.compute(Engine::vector, OpKind::tensor_copy, c_, n, T, {vq_last}, "gather", label(core_, idx(pn + ".vq_drain", nt)),
                        true, &vq_acc, Dtype::fp32);
    Deps add{a};
    if (has_lr)
      add.push_back(b_.compute(Engine::vector, OpKind::tensor_copy, c_, n, T, {lr_last}, "lr",
                               label(core_, idx(pn + ".lr_drain", nt)), true, &lr_acc, Dtype::fp32));
    out.ready.push_back(b_.compute(Engine::vector, OpKind::tensor_tensor, c_, n, T, add, "lr", label(core_, idx(pn + ".add", nt)),
                                   false, nullptr, Dtype::fp32));
    out.in_psum = false;
  }
  return out;
}

void CardanCore::project(std::uint32_t e) {
  if (e >= groups_.size()) return;
  const std::uint32_t T = groups_[e].tokens;
  for (std::size_t p = 0; p < projections_.size(); ++p) {
    std::string pn = "e" + std::to_string(e) + "." + projections_[p].name;
    ProjectionOut out = projections_[p].compressed
                            ? compressed_projection(e, p, pn)
                            : dense_projection(ctx_, core_, i_cols_, {in_.normed[core_]}, dense_load_[e][p], *down_ring_, "gate_up",
                                               pn, T, plan_, shape_.rows);
    // An expert whose gate and up tiles together need more banks than the gate/up pool has cannot hold them in
    // PSUM until φ reads them (its up tiles would wait for banks its own gate tiles hold): each tile is drained to
    // SBUF once summed, as the partial rows are (Mixtral on one core per rank: 2 x 7 tiles of 512 columns).
    const bool over_pool = plan_ && out.in_psum && !out.accs.empty() &&
                           out.accs.size() * projections_.size() > plan_->pool_banks(PsumRole::gate_up);
    if ((partial_ || over_pool) && out.in_psum) {
      // The partial rows go to SBUF (FP32) to be exchanged; with over_pool the whole sums, to free their banks.
      for (std::size_t nt = 0; nt < out.accs.size(); ++nt)
        if (out.accs[nt].bank >= 0)
          out.ready[nt] = b_.compute(Engine::vector, OpKind::tensor_copy, c_,
                                   std::min<std::uint32_t>(kBankColumns, i_cols_ - static_cast<std::uint32_t>(nt) * kBankColumns), T,
                                   {out.ready[nt]}, "gate_up", label(core_, idx(pn + ".drain", nt)), true, &out.accs[nt],
                                   Dtype::fp32);
      out.in_psum = false;
    }
    outs_[e][p] = out;
  }
}

Deps CardanCore::partials_ready(std::uint32_t first, std::uint32_t count, std::size_t p_first, std::size_t p_end) const {
  Deps d;
  if (!active()) return d;
  for (std::uint32_t e = first; e < first + count && e < outs_.size(); ++e)
    for (std::size_t p = p_first; p < p_end && p < outs_[e].size(); ++p)
      d.insert(d.end(), outs_[e][p].ready.begin(), outs_[e][p].ready.end());
  return d;
}

void CardanCore::send_partials(std::uint32_t e, const std::vector<CardanCore>& cores) {
  if (!partial_ || e >= groups_.size()) return;
  const std::uint32_t T = groups_[e].tokens;
  if (opt_.fused_gate_up_exchange && projections_.size() == 2) {
    // Both partials in one sendrecv: [T_e, 2 x I] FP32 rows, T_e partitions of 2 x I x 4 bytes.
    for (std::uint32_t o = 0; o < ctx_.lnc; ++o)
      if (o != core_)
        sent_rows_[e][o] = sent_rows_[e][ctx_.lnc + o] =
            ctx_.exchange(core_, std::uint64_t(i_cols_) * T * 4 * 2, T, o, partials_ready(e, 1, 0, 2),
                          cores[o].partials_ready(e, 1, 0, 2), "gate_up",
                          label(core_, "e" + std::to_string(e) + ".gate_up.to_core" + std::to_string(o)));
    return;
  }
  for (std::size_t p = 0; p < projections_.size(); ++p)
    for (std::uint32_t o = 0; o < ctx_.lnc; ++o)
      if (o != core_)
        // [T_e, I] FP32 rows: T_e partitions, one I x 4-byte run each.
        sent_rows_[e][p * ctx_.lnc + o] =
            ctx_.exchange(core_, std::uint64_t(i_cols_) * T * 4, T, o, outs_[e][p].ready, cores[o].partials_ready(e, 1, p, p + 1),
                          "gate_up",
                          label(core_, "e" + std::to_string(e) + "." + projections_[p].name + ".to_core" + std::to_string(o)));
}

void CardanCore::send_group_partials(std::uint32_t first, std::uint32_t count, const std::string& name,
                                     const std::vector<CardanCore>& cores) {
  if (!partial_ || first >= groups_.size()) return;
  count = std::min<std::uint32_t>(count, static_cast<std::uint32_t>(groups_.size()) - first);
  // [Σ T_e, P x I] FP32 rows: each expert's tokens on their partitions, the projections' partial rows side by side.
  std::uint32_t rows = 0;
  for (std::uint32_t e = first; e < first + count; ++e) rows += groups_[e].tokens;
  const Deps d = partials_ready(first, count, 0, projections_.size());
  const std::uint64_t bytes = std::uint64_t(i_cols_) * rows * 4 * projections_.size();
  for (std::uint32_t o = 0; o < ctx_.lnc; ++o) {
    if (o == core_) continue;
    OpId x = ctx_.exchange(core_, bytes, rows, o, d, cores[o].partials_ready(first, count, 0, projections_.size()), "gate_up",
                           label(core_, name + ".gate_up.to_core" + std::to_string(o)));
    for (std::uint32_t e = first; e < first + count; ++e)
      for (std::size_t p = 0; p < projections_.size(); ++p) sent_rows_[e][p * ctx_.lnc + o] = x;
  }
}

void CardanCore::sum_partials(std::uint32_t e, const std::vector<CardanCore>& cores) {
  if (!partial_ || e >= groups_.size()) return;
  const std::uint32_t T = groups_[e].tokens;
  for (std::size_t p = 0; p < projections_.size(); ++p) {
    Deps d = outs_[e][p].ready;
    for (const CardanCore& other : cores)
      if (other.core_ != core_ && other.active() && e < other.sent_rows_.size())
        d.push_back(other.sent_rows_[e][p * ctx_.lnc + core_]);
    OpId sum = b_.compute(Engine::vector, OpKind::tensor_tensor, c_, i_cols_, T, d, "gate_up",
                          label(core_, "e" + std::to_string(e) + "." + projections_[p].name + ".partial_sum"), false, nullptr,
                          Dtype::fp32);
    outs_[e][p].ready.assign(outs_[e][p].ready.size(), sum);
  }
}

void CardanCore::finish_expert(std::uint32_t e) {
  if (e >= groups_.size()) return;
  const std::uint32_t T = groups_[e].tokens;
  std::string en = "e" + std::to_string(e);
  const ProjectionOut* gate = ctx_.model.gated ? &outs_[e][0] : nullptr;
  OpId p_t = activation_product(ctx_, core_, i_cols_, gate, outs_[e].back(), combiner_.wants_scaled_input(), en, T, plan_);
  if (!opt_.overlap_windows)  // without window 3 the down weights load only once gate/up is done
    down_[e] = load_down_tiles(ctx_, core_, i_cols_, h_cols_, *down_ring_, {p_t}, en);
  DownInput d;
  d.i_cols = i_cols_;
  d.tokens = T;
  d.p_ready = p_t;
  d.weights = down_[e];
  combiner_.add_expert(d, en);
}

}  // namespace stasim
