// CardanCore: everything one physical core builds for the hybrid dataflow's routed experts (docs/cardan.md):
//   o_e = Σ_b T[b, J_e[b, :]] + C_eᵀ z,   z = Dᵀ h,   T[b, k, t] = h_{b,t}ᵀ B_k.
// Sharded as the dense kernel: one token -> the cores split H for the VQ part (this core's blocks of J_e and T)
// and r for the LR part (its columns of D, its rows of C_e, z over all of H), so both parts are partial sums over
// all of I, exchanged and summed as the partial gate/up rows [T_e, I] (z itself never crosses); several tokens ->
// the cores split the tokens, each running its (token, k) routes as the selective kernel loops (every route loads
// its expert's J_e, C_e and W_down), or with `--group-routes` sharing an expert between the core's tokens routed to
// it (J_e, C_e and W_down once: one index fetches all their code words, the matmuls carry T_e).
// The steps are separate methods so the orchestration (cardan_moe.cpp) can interleave them across cores and
// experts: shared rounds one expert ahead, gathers over expert groups in J arrival order, heads before tails.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dataflows/cardan_shared.hpp"
#include "dataflows/down_combiner.hpp"
#include "dataflows/expert_ffn.hpp"
#include "dataflows/moe_block.hpp"

namespace stasim {

class CardanCore {
 public:
  CardanCore(DecodeContext& ctx, std::uint32_t core, const MoeInputs& in, DownCombiner& combiner);

  bool active() const { return i_cols_ > 0; }
  std::uint32_t experts() const { return static_cast<std::uint32_t>(groups_.size()); }
  bool splits_h() const { return partial_; }
  bool has_vq() const { return vq_; }

  // Window 1: B and D do not depend on the routing (static weights, prefetched when allowed).
  void load_shared();
  // The shared round `round` (one per token with reuse, one per expert without): this core's z entries and T.
  void compute_round(std::uint32_t round);
  // The ring of J_e and C_e (windows 2 and 3: the routed loads' addresses are known right after routing).
  void prepare_private();
  // Whether the routed loads are issued inside the expert loop, one gather group ahead (software DGE: their
  // descriptors are GpSimd work the scheduler interleaves with the gathers) rather than all right after routing
  // (hardware DGE: the DMA queues issue them as soon as the addresses are known).
  bool interleaves_loads() const;
  // Whether an expert's partial sums go out one expert behind its head (after the next expert's gathers) rather
  // than right after its gate/up: exchanges on GpSimd's own DMA (core.dma.exchange_engine = gpsimd_dma) sit in
  // GpSimd's in-order stream, where an exchange issued right after its expert's gathers would stall the next
  // expert's gathers until this expert's reduction is done; a software-pipelined kernel issues it one behind.
  bool sends_behind() const { return ctx_.exchanges_on_gpsimd(); }
  // Expert e's J_e and C_e (or its uncompressed projections' weights).
  void load_private(std::uint32_t e);
  // Expert e's W_down (window 3; without it finish_expert loads them after gate/up). The first call makes the ring.
  void load_down(std::uint32_t e);
  // One GpSimd selection per compressed projection for experts [first, first + count) (gate and up adjacent);
  // the group's experts serve the same number of tokens (one elements-per-index for the instruction).
  void gather(std::uint32_t first, std::uint32_t count, const std::string& name);
  // Elements one projection's selection gathers per partition for expert e.
  std::uint32_t gather_elements(std::uint32_t e) const;
  std::uint32_t tokens_of(std::uint32_t e) const { return e < groups_.size() ? groups_[e].tokens : 0; }
  // Expert e up to the gate/up rows: VQ reduction and C_eᵀz into PSUM (jointly or apart).
  void project(std::uint32_t e);
  // H split: sends expert e's partial gate/up rows to the other cores (each sendrecv also waits for the other
  // core's side, `cores`: DecodeContext::exchange); then adds theirs.
  void send_partials(std::uint32_t e, const std::vector<CardanCore>& cores);
  // With batched gathers, the partial gate/up rows of the gather group's experts in one sendrecv.
  void send_group_partials(std::uint32_t first, std::uint32_t count, const std::string& name,
                           const std::vector<CardanCore>& cores);
  void sum_partials(std::uint32_t e, const std::vector<CardanCore>& cores);
  // φ, product, p to [I, T], down projection.
  void finish_expert(std::uint32_t e);

 private:
  // When the partial rows of projections [p_first, p_end) of experts [first, first + count) are ready (none on an
  // inactive core or past its experts).
  Deps partials_ready(std::uint32_t first, std::uint32_t count, std::size_t p_first, std::size_t p_end) const;
  std::uint32_t round_of(std::uint32_t e) const { return opt_.reuse_shared_projections ? 0 : e; }
  ProjectionOut compressed_projection(std::uint32_t e, std::size_t p, const std::string& pn);

  struct Projection {
    std::string name;
    bool compressed;
  };
  struct Round {
    std::vector<OpId> z, table;  // per projection
  };

  DecodeContext& ctx_;
  KernelBuilder& b_;
  const Representation& rep_;
  const DataflowOptions& opt_;
  const MoeInputs& in_;
  DownCombiner& combiner_;
  PsumPlan* plan_ = nullptr;
  std::uint32_t core_;
  std::uint8_t c_;
  std::vector<ExpertGroup> groups_;  // the loop's items (expert_groups.hpp loop_items): routes, or distinct experts
  SharedShape shape_;
  std::uint32_t i_cols_ = 0, h_cols_ = 0, r_ = 0;
  bool vq_ = false, lr_ = false, partial_ = false;
  std::vector<Projection> projections_;
  std::vector<OpId> basis_, codebook_;  // per projection
  std::vector<Round> rounds_;
  std::vector<std::vector<OpId>> idx_load_, coef_load_, gathered_;  // [expert][projection]
  std::vector<std::vector<std::vector<OpId>>> dense_load_;         // [expert][projection][chunk]
  std::vector<DownWeights> down_;
  std::vector<std::vector<ProjectionOut>> outs_;   // [expert][projection]
  std::vector<std::vector<OpId>> sent_rows_;       // [expert][projection x core]
  std::unique_ptr<WeightRing> private_ring_, down_ring_;
  Deps private_start_;
  std::uint64_t j_bytes() const { return std::uint64_t(shape_.blocks) * i_cols_; }  // uint8 indices
  std::uint64_t c_bytes() const { return std::uint64_t(r_) * i_cols_ * 2; }
};

}  // namespace stasim
