// The hybrid LR+VQ routed experts of docs/cardan.md on one physical core:
//   o_e = Σ_b T[b, J_e[b, :]] + C_eᵀ z,   z = Dᵀ h (r values),   T[b, k] = h_bᵀ B_k ((H/d) x K values)
// Shared, routing-independent: load B and D, compute z and T. Private: load J_e and C_e, gather on GpSimd,
// reduce the gathered code words and C_eᵀ z on the tensor engine, then φ, product and the dense down projection.
// The rank's I is split over its physical cores; D is split by rows (H) over the cores, so the partial z are
// exchanged over the cross-core link and summed.
#include <algorithm>
#include <memory>

#include "dataflows/cardan_shared.hpp"
#include "dataflows/moe_block.hpp"

namespace stasim {
namespace {

constexpr std::uint32_t kBankColumns = 512;

std::string idx(const std::string& base, std::uint64_t i) { return base + "[" + std::to_string(i) + "]"; }

struct Shared {            // one compressed projection's routing-independent part on one core
  OpId z = kNoOp;          // z = Dᵀh summed over the cores, in SBUF as [r, T]
  OpId table = kNoOp;      // T in SBUF
};

}  // namespace

namespace {

// One compressed (or dense) first-GEMM projection of the experts.
struct Projection {
  std::string name;
  bool compressed;
};

// Everything one core of the rank builds for the routed experts; the steps are emitted core by core, but in
// an order that lets one core's step depend on another core's earlier step (the partial-z exchange).
class CardanCore {
 public:
  CardanCore(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner)
      : ctx_(ctx), b_(ctx.b), rep_(ctx.representation), opt_(ctx.options), in_(in), combiner_(combiner),
        core_(core), c_(static_cast<std::uint8_t>(core)) {
    const ModelSpec& m = ctx.model;
    i_cols_ = ctx.share(m.intermediate_per_rank(ctx.deployment.tp), core);
    k_ = ctx.experts.size();
    vq_ = rep_.has_vq();
    lr_ = rep_.has_lr();
    r_ = static_cast<std::uint32_t>(rep_.r);
    blocks_ = vq_ ? ctx.hidden / static_cast<std::uint32_t>(rep_.d) : 0;
    rows_ = ctx.share(ctx.hidden, core);
    if (m.gated) projections_.push_back({"gate", rep_.gate});
    projections_.push_back({"up", rep_.up});
    z_partial_.assign(k_, std::vector<OpId>(projections_.size(), kNoOp));
    shared_.assign(k_, std::vector<Shared>(projections_.size()));
  }

  bool active() const { return i_cols_ > 0; }
  // How many times z and T are computed: once per token with reuse, once per expert without.
  std::uint32_t shared_rounds() const { return opt_.reuse_shared_projections ? 1 : k_; }

  // Window 1: B and D do not depend on the routing; with overlap they load while the router runs.
  void load_shared() {
    Deps start{opt_.overlap_windows ? ctx_.h_ready[core_] : in_.topk[core_]};
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      if (!projections_[p].compressed) continue;
      const std::string& pn = projections_[p].name;
      if (lr_) {
        std::uint64_t bytes = std::uint64_t(std::max<std::uint32_t>(rows_, 1)) * r_ * 2;
        basis_.push_back(b_.dma(c_, bytes, 128, Location::hbm, Location::sbuf, start, "shared_proj", label(core_, pn + ".load_D")));
        b_.use(basis_.back(), b_.buffer(c_, label(core_, pn + ".D"), ceil_div(bytes, 128)));
      } else {
        basis_.push_back(kNoOp);
      }
      codebook_.push_back(vq_ ? b_.dma(c_, std::uint64_t(rep_.K) * rep_.d * 2, std::min<std::uint32_t>(rep_.d, 128),
                                       Location::hbm, Location::sbuf, start, "shared_proj", label(core_, pn + ".load_B"))
                              : kNoOp);
    }
  }

  // The partial z (this core's rows of D) and T of round `round` (round = expert without reuse).
  void compute_partial(std::uint32_t round) {
    std::size_t q = 0;
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      if (!projections_[p].compressed) continue;
      std::string pn = projections_[p].name + (opt_.reuse_shared_projections ? "" : ".e" + std::to_string(round));
      if (lr_) z_partial_[round][p] = shared_z(ctx_, core_, rows_, in_.normed[core_], basis_[q], pn);
      if (vq_) shared_[round][p].table = shared_table(ctx_, core_, in_.normed[core_], codebook_[q], pn);
      ++q;
    }
  }

  // Sends this core's partial z of `round` to every other core.
  void send_partial(std::uint32_t round) {
    if (!lr_ || ctx_.lnc == 1) return;
    sent_.resize(k_ * projections_.size() * ctx_.lnc, kNoOp);
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      if (!projections_[p].compressed) continue;
      for (std::uint32_t o = 0; o < ctx_.lnc; ++o)
        if (o != core_)
          sent_[(round * projections_.size() + p) * ctx_.lnc + o] =
              b_.dma(c_, std::uint64_t(r_) * ctx_.tokens * 4, std::min<std::uint32_t>(128, r_), Location::sbuf,
                     Location::peer, {z_partial_[round][p]}, "shared_proj",
                     label(core_, projections_[p].name + ".z_to_core" + std::to_string(o)), -1, static_cast<std::uint8_t>(o));
    }
  }

  // z = the sum of every core's partial; `cores` gives the other cores' sends.
  void sum_partials(std::uint32_t round, const std::vector<CardanCore>& cores) {
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      if (!projections_[p].compressed || !lr_) continue;
      if (ctx_.lnc == 1) {
        shared_[round][p].z = z_partial_[round][p];
        continue;
      }
      Deps d{z_partial_[round][p]};
      for (const CardanCore& other : cores)
        if (other.core_ != core_ && !other.sent_.empty())
          d.push_back(other.sent_[(round * projections_.size() + p) * ctx_.lnc + core_]);
      shared_[round][p].z = b_.compute(Engine::vector, OpKind::tensor_tensor, c_,
                                       static_cast<std::uint32_t>(ceil_div(r_, 128)) * ctx_.tokens,
                                       std::min<std::uint32_t>(128, r_), d, "shared_proj",
                                       label(core_, projections_[p].name + ".z_sum"), false, nullptr, Dtype::fp32);
    }
  }

  // Private bytes of one expert per partition (J and C of every compressed projection).
  std::uint64_t private_bytes() const {
    return ceil_div(projections_.size() * (std::uint64_t(blocks_) * i_cols_ + 2ull * r_ * i_cols_), 128);
  }
  // Experts whose private parts are resident at once: all of them when they fit half the SBUF; otherwise
  // waves, two resident at a time (the next wave loads while the current one computes).
  std::uint32_t wave_capacity() const {
    std::uint64_t budget = ctx_.hw.sbuf.usable_bytes_per_partition() / 2, per = std::max<std::uint64_t>(private_bytes(), 1);
    if (per * k_ <= budget) return std::max<std::uint32_t>(k_, 1);
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, budget / (2 * per)));
  }

  // Window 2: the activated experts' private parts load right after routing (after z and T without overlap);
  // experts [first, first + count) form wave `wave`, which reuses the buffer of wave - 2 once that is done.
  void load_private(std::uint32_t wave, std::uint32_t first, std::uint32_t count, std::uint32_t waves) {
    Deps start{in_.topk[core_]};
    if (!opt_.overlap_windows)
      for (const Shared& s : shared_[0]) {
        start.push_back(s.z);
        start.push_back(s.table);
      }
    if (wave >= 2) start.push_back(wave_done_[wave - 2]);
    if (wave == 0) setup_private(first + count, waves);
    std::uint32_t buffer = private_bufs_[wave % private_bufs_.size()];
    for (std::uint32_t e = first; e < first + count; ++e) expert_buffer_[e] = buffer;
    load_private_range(first, count, start);
  }
  void end_wave(std::uint32_t wave, std::uint32_t last_expert) {
    wave_done_.resize(std::max<std::size_t>(wave_done_.size(), wave + 1), kNoOp);
    wave_done_[wave] = last_p_t_[last_expert];
  }

 private:
  void setup_private(std::uint32_t wave_size, std::uint32_t waves) {
    for (std::uint32_t w = 0; w < std::min<std::uint32_t>(waves, 2); ++w)
      private_bufs_.push_back(b_.buffer(c_, label(core_, waves == 1 ? "experts.private" : "experts.private" + std::to_string(w)),
                                        wave_size * private_bytes()));
    expert_buffer_.assign(k_, 0);
    last_p_t_.assign(k_, kNoOp);
    idx_load_.assign(k_, std::vector<OpId>(projections_.size(), kNoOp));
    coef_load_ = idx_load_;
    dense_load_.assign(k_, std::vector<std::vector<OpId>>(projections_.size()));
    down_load_.assign(k_, {});
    // Down weights (and any uncompressed projection) stream through a ring; all activated experts' fit on
    // the shipped models.
    std::uint32_t chunks = static_cast<std::uint32_t>(ceil_div(i_cols_, kDownRowsPerChunk) + 2 * ceil_div(i_cols_, 512));
    ring_ = std::make_unique<WeightRing>(ctx_, core_, "experts.w", expert_chunk_bytes(ctx_, i_cols_), k_ * chunks, 0.35);
  }

  void load_private_range(std::uint32_t first, std::uint32_t count, const Deps& start) {
    for (std::uint32_t e = first; e < first + count; ++e) {
      std::string en = "e" + std::to_string(e);
      for (std::size_t p = 0; p < projections_.size(); ++p) {
        std::string pn = en + "." + projections_[p].name;
        if (!projections_[p].compressed) {
          dense_load_[e][p] = load_projection(ctx_, core_, i_cols_, ctx_.model.intermediate_per_rank(ctx_.deployment.tp),
                                              *ring_, start, "gate_up", pn);
          continue;
        }
        if (vq_) {
          idx_load_[e][p] = b_.dma(c_, std::uint64_t(blocks_) * i_cols_, 128, Location::hbm, Location::sbuf, start,
                                   "gather", label(core_, pn + ".load_J"));
          b_.use(idx_load_[e][p], expert_buffer_[e]);
        }
        if (lr_)
          coef_load_[e][p] = b_.dma(c_, std::uint64_t(r_) * i_cols_ * 2, std::min<std::uint32_t>(128, r_), Location::hbm,
                                    Location::sbuf, start, "lr", label(core_, pn + ".load_C"));
      }
    }
    // Window 3: the down weights' addresses are known after routing too; queued behind the private parts, they
    // stream while GpSimd gathers and the tensor engine computes C_eᵀ z.
    if (opt_.overlap_windows)
      for (std::uint32_t e = first; e < first + count; ++e)
        down_load_[e] = load_down(ctx_, core_, i_cols_, *ring_, {in_.topk[core_]}, "down", "e" + std::to_string(e));
  }

 public:

  // GpSimd selections, batched: one per projection for all activated experts. Without reuse each expert
  // computed its own T; the batched gather reads the last one.
  void batched_gathers(std::uint32_t first, std::uint32_t count) {
    if (!vq_) return;
    if (gathered_.empty()) gathered_.assign(k_, std::vector<OpId>(projections_.size(), kNoOp));
    std::string suffix = first == 0 && count == k_ ? "" : "[" + std::to_string(first) + "]";
    for (std::size_t p = 0; p < projections_.size(); ++p)
      if (projections_[p].compressed)
        emit_gather(p, first, count, shared_[shared_rounds() - 1][p].table, projections_[p].name + ".gather_all" + suffix);
  }

  // Unbatched: one selection per projection for expert e, each paying GpSimd's per-instruction setup.
  void expert_gathers(std::uint32_t e) {
    if (!vq_) return;
    if (gathered_.empty()) gathered_.assign(k_, std::vector<OpId>(projections_.size(), kNoOp));
    for (std::size_t p = 0; p < projections_.size(); ++p)
      if (projections_[p].compressed)
        emit_gather(p, e, 1, shared_[opt_.reuse_shared_projections ? 0 : e][p].table,
                    "e" + std::to_string(e) + "." + projections_[p].name + ".gather");
  }

  // Expert e: the VQ reduction and C_eᵀ z into PSUM, φ and product, and the down projection.
  void expert(std::uint32_t e) {
    std::string en = "e" + std::to_string(e);
    std::uint32_t T = ctx_.experts.groups[e].padded_tokens;
    const Shared* own = opt_.reuse_shared_projections ? shared_[0].data() : shared_[e].data();
    std::vector<ProjectionOut> outs(projections_.size());
    for (std::size_t p = 0; p < projections_.size(); ++p) {
      std::string pn = en + "." + projections_[p].name;
      if (!projections_[p].compressed) {
        outs[p] = dense_projection(ctx_, core_, i_cols_, {in_.normed[core_]}, dense_load_[e][p], *ring_, "gate_up", pn, T);
        continue;
      }
      outs[p] = compressed_projection(e, p, own[p].z, pn);
    }
    const ProjectionOut* gate = ctx_.model.gated ? &outs[0] : nullptr;
    OpId p_t = activation_product(ctx_, core_, i_cols_, gate, outs.back(), combiner_.wants_scaled_input(), en, T);
    if (!opt_.overlap_windows)  // without window 3 the down weights load only once gate/up is done
      down_load_[e] = load_down(ctx_, core_, i_cols_, *ring_, {p_t}, "down", en);
    combiner_.add_expert(i_cols_, p_t, down_load_[e], *ring_, en, T);
    b_.use(p_t, expert_buffer_[e]);
    last_p_t_[e] = p_t;
  }

 private:
  void emit_gather(std::size_t p, std::uint32_t first, std::uint32_t count, OpId table, const std::string& name) {
    Deps d{table};
    for (std::uint32_t e = first; e < first + count; ++e) d.push_back(idx_load_[e][p]);
    // Each expert's selections cover its own tokens.
    std::uint64_t elements = 0;
    for (std::uint32_t e = first; e < first + count; ++e)
      elements += std::uint64_t(blocks_) * i_cols_ * ctx_.experts.groups[e].tokens;
    // nc_n_gather over 128 partitions of uint8 code indices (widened to uint32 first).
    OpId g = b_.gather(c_, static_cast<std::uint32_t>(ceil_div(elements, 128)), 128, 1, 1, d, "gather", label(core_, name));
    for (std::uint32_t e = first; e < first + count; ++e) gathered_[e][p] = g;
  }

  ProjectionOut compressed_projection(std::uint32_t e, std::size_t p, OpId z, const std::string& pn) {
    ProjectionOut out;
    std::uint32_t T = ctx_.experts.groups[e].padded_tokens;
    std::uint32_t n_tiles = static_cast<std::uint32_t>(ceil_div(i_cols_, kBankColumns));
    std::uint32_t b_tiles = static_cast<std::uint32_t>(ceil_div(blocks_, 128));
    std::uint32_t r_tiles = static_cast<std::uint32_t>(ceil_div(r_, 128));
    for (std::uint32_t nt = 0; nt < n_tiles; ++nt) {
      std::uint32_t n = std::min<std::uint32_t>(kBankColumns, i_cols_ - nt * kBankColumns);
      bool joint = opt_.joint_psum_accumulation || !(vq_ && lr_);
      Accumulator vq_acc, lr_acc;
      if (joint) {
        vq_acc = lr_acc = b_.open_accumulator(c_, label(core_, idx(pn + ".acc", nt)));
      } else {
        vq_acc = b_.open_accumulator(c_, label(core_, idx(pn + ".vq_acc", nt)));
        lr_acc = b_.open_accumulator(c_, label(core_, idx(pn + ".lr_acc", nt)));
      }
      OpId vq_last = kNoOp, lr_last = kNoOp;
      // Σ_b of the gathered code words: a ones vector stationary (loaded once), the gathered rows moving.
      for (std::uint32_t bt = 0; vq_ && bt < b_tiles; ++bt)
        vq_last = b_.matmul(c_, std::min<std::uint32_t>(128, blocks_ - bt * 128), T, n, bt == 0, vq_acc,
                            bt == 0 ? Deps{gathered_[e][p]} : Deps{}, "gather", label(core_, idx(pn + ".vq_sum", nt * b_tiles + bt)));
      // C_eᵀ z: z [r, T] stationary per 128 rows, C_e moving.
      for (std::uint32_t rt = 0; lr_ && rt < r_tiles; ++rt)
        lr_last = b_.matmul(c_, std::min<std::uint32_t>(128, r_ - rt * 128), T, n, true, lr_acc,
                            rt == 0 ? Deps{z, coef_load_[e][p]} : Deps{}, "lr", label(core_, idx(pn + ".lr_mm", nt * r_tiles + rt)));
      if (joint) {
        out.accs.push_back(vq_ ? vq_acc : lr_acc);
        out.ready.push_back(lr_ ? lr_last : vq_last);
      } else {
        // Each part writes a standalone vector to SBUF before they are added (no joint accumulation).
        OpId a = b_.compute(Engine::vector, OpKind::tensor_copy, c_, n, T, {vq_last}, "gather",
                            label(core_, idx(pn + ".vq_drain", nt)), true, &vq_acc, Dtype::fp32);
        OpId l = b_.compute(Engine::vector, OpKind::tensor_copy, c_, n, T, {lr_last}, "lr",
                            label(core_, idx(pn + ".lr_drain", nt)), true, &lr_acc, Dtype::fp32);
        out.ready.push_back(b_.compute(Engine::vector, OpKind::tensor_tensor, c_, n, T, {a, l}, "lr",
                                       label(core_, idx(pn + ".add", nt)), false, nullptr, Dtype::fp32));
        out.in_psum = false;
      }
    }
    return out;
  }

  DecodeContext& ctx_;
  KernelBuilder& b_;
  const Representation& rep_;
  const DataflowOptions& opt_;
  const MoeInputs& in_;
  DownCombiner& combiner_;
  std::uint32_t core_;
  std::uint8_t c_;
  std::uint32_t i_cols_ = 0, k_ = 0, r_ = 0, blocks_ = 0, rows_ = 0;
  bool vq_ = false, lr_ = false;
  std::vector<Projection> projections_;
  std::vector<OpId> basis_, codebook_;                  // per compressed projection
  std::vector<std::vector<OpId>> z_partial_;            // [round][projection]
  std::vector<std::vector<Shared>> shared_;             // [round][projection]
  std::vector<OpId> sent_;                              // [round][projection][to core]
  std::vector<std::vector<OpId>> idx_load_, coef_load_, gathered_;  // [expert][projection]
  std::vector<std::vector<std::vector<OpId>>> dense_load_;           // [expert][projection][chunk]
  std::vector<std::vector<OpId>> down_load_;                         // [expert][chunk]
  std::unique_ptr<WeightRing> ring_;
  std::vector<std::uint32_t> private_bufs_;   // one, or two alternating between waves
  std::vector<std::uint32_t> expert_buffer_;  // per expert: the private buffer its wave uses
  std::vector<OpId> last_p_t_, wave_done_;
};

}  // namespace

void cardan_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  std::vector<CardanCore> cores;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) cores.emplace_back(ctx, c, in, combiners[c]);
  auto each = [&](auto&& step) {
    for (CardanCore& c : cores)
      if (c.active()) step(c);
  };
  auto shared_round = [&](std::uint32_t round) {
    each([&](CardanCore& c) { c.compute_partial(round); });
    each([&](CardanCore& c) { c.send_partial(round); });
    each([&](CardanCore& c) { c.sum_partials(round, cores); });
  };
  const DataflowOptions& opt = ctx.options;
  std::uint32_t k = ctx.experts.size();
  // Private parts in waves when the step's experts do not all fit (all-experts mode at large batches).
  std::uint32_t wave = k;
  each([&](CardanCore& c) { wave = std::min(wave, c.wave_capacity()); });
  wave = std::max<std::uint32_t>(wave, 1);
  std::uint32_t waves = static_cast<std::uint32_t>(ceil_div(std::max<std::uint32_t>(k, 1), wave));
  auto wave_of = [&](std::uint32_t w) { return std::make_pair(w * wave, std::min(k, (w + 1) * wave) - w * wave); };
  each([](CardanCore& c) { c.load_shared(); });
  if (!opt.reuse_shared_projections && !opt.batch_gathers) {
    // Each expert computes its own z and T, gathers and runs, one after the other.
    for (std::uint32_t e = 0; e < k; ++e) {
      shared_round(e);
      if (e % wave == 0) {
        auto [first, count] = wave_of(e / wave);
        if (e >= wave) each([&](CardanCore& c) { c.end_wave(e / wave - 1, first - 1); });
        each([&](CardanCore& c) { c.load_private(e / wave, first, count, waves); });
      }
      each([&](CardanCore& c) { c.expert_gathers(e); });
      each([&](CardanCore& c) { c.expert(e); });
    }
    return;
  }
  std::uint32_t rounds = opt.reuse_shared_projections ? 1 : k;
  for (std::uint32_t round = 0; round < rounds; ++round) shared_round(round);
  for (std::uint32_t w = 0; w < waves; ++w) {
    auto [first, count] = wave_of(w);
    each([&](CardanCore& c) { c.load_private(w, first, count, waves); });
    if (opt.batch_gathers) {
      each([&](CardanCore& c) { c.batched_gathers(first, count); });
    } else {
      for (std::uint32_t e = first; e < first + count; ++e) each([&](CardanCore& c) { c.expert_gathers(e); });
    }
    for (std::uint32_t e = first; e < first + count; ++e) each([&](CardanCore& c) { c.expert(e); });
    each([&](CardanCore& c) { c.end_wave(w, first + count - 1); });
  }
}

}  // namespace stasim
