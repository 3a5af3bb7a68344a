// How the routed experts' gate/up weights are stored (dense BF16, hybrid LR+VQ, VQ-only, LR-only, MXFP4) and
// the storage arithmetic of docs/cardan.md: bits per original weight with the shared part amortized over E
// experts, bytes per expert (private) and per layer (shared), gate/up shrink versus BF16. Down stays dense.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/model_spec.hpp"

namespace stasim {

enum class RepresentationKind { dense_bf16, hybrid, vq_only, lr_only, mxfp4 };

const char* to_string(RepresentationKind kind);
// Throws InputError naming the valid kinds (with a did-you-mean) for an unknown name.
RepresentationKind parse_representation_kind(const std::string& name);

// Bytes of one projection (gate, up or down) of one expert on one TP rank.
struct ProjectionBytes {
  std::int64_t index_bytes = 0;        // VQ index map J_e: (H/d)·I_rank indices
  std::int64_t coefficient_bytes = 0;  // LR coefficients C_e: r·I_rank BF16
  std::int64_t dense_bytes = 0;        // dense BF16 H·I_rank, or MXFP4 elements + scales
  std::int64_t total() const { return index_bytes + coefficient_bytes + dense_bytes; }
};

// One routed expert on one TP rank: what DMA must fetch once the routing picked it. gate is zero for a
// non-gated model (ReLU²: up and down only).
struct ExpertBytes {
  ProjectionBytes gate;
  ProjectionBytes up;
  ProjectionBytes down;
  std::int64_t gate_up_bytes() const { return gate.total() + up.total(); }
  std::int64_t total() const { return gate.total() + up.total() + down.total(); }
};

// The per-layer parts shared by all experts (routing-independent): code book B (K×d) and basis D (H×r) per
// compressed projection. Every TP rank holds all of it (z = Dᵀh and T need the full H).
struct SharedBytes {
  std::int64_t codebook_bytes = 0;  // summed over the compressed projections
  std::int64_t basis_bytes = 0;
  std::int64_t total() const { return codebook_bytes + basis_bytes; }
};

struct Representation {
  RepresentationKind kind = RepresentationKind::dense_bf16;
  std::int64_t d = 8;      // VQ block length (hybrid, vq_only)
  std::int64_t r = 384;    // LR rank (hybrid, lr_only; 0 for vq_only)
  std::int64_t K = 256;    // code words per code book (hybrid, vq_only)
  std::int64_t index_bits = 8;  // storage of one index of J_e: uint8
  bool gate = true;        // which first-GEMM projections are compressed (gate is ignored for non-gated models)
  bool up = true;

  static Representation dense_bf16();
  static Representation hybrid(std::int64_t d, std::int64_t r, std::int64_t K);  // r = 0 is VQ-only
  static Representation vq_only(std::int64_t d, std::int64_t K);
  static Representation lr_only(std::int64_t r);
  static Representation mxfp4();

  bool has_vq() const;  // an index map and a code book
  bool has_lr() const;  // a basis and coefficients (r > 0)
  // "dense_bf16", "hybrid(d=8,r=384,K=256)", ... for reports.
  std::string describe() const;

  // Bits per original weight of one compressed projection, whole model (tp = 1 as in cardan.md):
  //   log2(K)/d + 16·r/H + 16·(K·d + H·r)/(E·H·I)   with log2(K) stored as index_bits;
  // 16 for dense_bf16, 4.25 for mxfp4 (4-bit elements + one 8-bit scale per 32). With tp > 1 the private
  // part uses I/tp and the shared part, replicated on each rank, weighs tp times more.
  double bits_per_weight(const ModelSpec& model, std::int64_t tp = 1) const;
  // Gate+up bytes of dense BF16 over gate+up bytes of this representation (16 / rate when both are compressed).
  double gate_up_shrink(const ModelSpec& model, std::int64_t tp = 1) const;

  ExpertBytes expert_bytes(const ModelSpec& model, const Deployment& deployment) const;
  SharedBytes shared_bytes_per_layer(const ModelSpec& model) const;

  // Every problem at once: d must divide H, K ≤ 2^index_bits, 0 ≤ r ≤ min(H, I), MXFP4 needs 32 | H, plus the
  // deployment's own problems (tp must divide I). Empty when valid.
  std::vector<std::string> problems(const ModelSpec& model, const Deployment& deployment) const;
  // Throws InputError listing problems(), if any.
  void validate(const ModelSpec& model, const Deployment& deployment) const;
};

}  // namespace stasim
