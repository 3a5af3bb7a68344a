#include "workloads/representation.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

constexpr double kBf16Bits = 16.0;
constexpr std::int64_t kBf16Bytes = 2;
// MXFP4 (OCP MX): 4-bit E2M1 elements in blocks of 32 along the contraction dimension, one 8-bit E8M0 scale
// per block: 4 + 8/32 = 4.25 bits per weight.
constexpr std::int64_t kMxBlock = 32;
constexpr double kMxfp4Bits = 4.0 + 8.0 / kMxBlock;

constexpr struct {
  RepresentationKind kind;
  const char* name;
} kKinds[] = {{RepresentationKind::dense_bf16, "dense_bf16"},
              {RepresentationKind::hybrid, "hybrid"},
              {RepresentationKind::vq_only, "vq_only"},
              {RepresentationKind::lr_only, "lr_only"},
              {RepresentationKind::mxfp4, "mxfp4"}};

std::string num(std::int64_t value) { return std::to_string(value); }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The first-GEMM projections this representation compresses on this model (a non-gated model has no gate).
bool compresses_gate(const Representation& rep, const ModelSpec& model) { return model.gated && rep.gate; }

bool is_compressed(RepresentationKind kind) { return kind != RepresentationKind::dense_bf16; }

}  // namespace

const char* to_string(RepresentationKind kind) {
  for (const auto& entry : kKinds)
    if (entry.kind == kind) return entry.name;
  return "?";
}

RepresentationKind parse_representation_kind(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& entry : kKinds) {
    if (name == entry.name) return entry.kind;
    names.push_back(entry.name);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  std::string near = nearest_match(name, names);
  throw InputError("representation '" + name + "' is not one of " + list +
                   (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

Representation Representation::dense_bf16() { return Representation{}; }

Representation Representation::hybrid(std::int64_t d, std::int64_t r, std::int64_t K) {
  Representation rep;
  rep.kind = RepresentationKind::hybrid;
  rep.d = d;
  rep.r = r;
  rep.K = K;
  return rep;
}

Representation Representation::vq_only(std::int64_t d, std::int64_t K) {
  Representation rep = hybrid(d, 0, K);
  rep.kind = RepresentationKind::vq_only;
  return rep;
}

Representation Representation::lr_only(std::int64_t r) {
  Representation rep;
  rep.kind = RepresentationKind::lr_only;
  rep.r = r;
  return rep;
}

Representation Representation::mxfp4() {
  Representation rep;
  rep.kind = RepresentationKind::mxfp4;
  return rep;
}

bool Representation::has_vq() const {
  return kind == RepresentationKind::hybrid || kind == RepresentationKind::vq_only;
}

bool Representation::has_lr() const {
  return (kind == RepresentationKind::hybrid || kind == RepresentationKind::lr_only) && r > 0;
}

std::string Representation::describe() const {
  switch (kind) {
    case RepresentationKind::hybrid:
      return "hybrid(d=" + num(d) + ",r=" + num(r) + ",K=" + num(K) + ")";
    case RepresentationKind::vq_only:
      return "vq_only(d=" + num(d) + ",K=" + num(K) + ")";
    case RepresentationKind::lr_only:
      return "lr_only(r=" + num(r) + ")";
    default:
      return to_string(kind);
  }
}

double Representation::bits_per_weight(const ModelSpec& model, std::int64_t tp) const {
  if (kind == RepresentationKind::dense_bf16) return kBf16Bits;
  if (kind == RepresentationKind::mxfp4) return kMxfp4Bits;
  const double H = static_cast<double>(model.hidden);
  const double I = static_cast<double>(model.intermediate_per_rank(tp));
  const double E = static_cast<double>(model.experts);
  double rate = 0.0;
  double shared_bits = 0.0;  // per layer and projection
  if (has_vq()) {
    rate += static_cast<double>(index_bits) / static_cast<double>(d);
    shared_bits += kBf16Bits * static_cast<double>(K * d);
  }
  if (has_lr()) {
    rate += kBf16Bits * static_cast<double>(r) / H;
    shared_bits += kBf16Bits * H * static_cast<double>(r);
  }
  return rate + shared_bits / (E * H * I);
}

double Representation::gate_up_shrink(const ModelSpec& model, std::int64_t tp) const {
  const double compressed_rate = bits_per_weight(model, tp);
  double dense_bits = 0.0;
  double stored_bits = 0.0;
  if (model.gated) {
    dense_bits += kBf16Bits;
    stored_bits += is_compressed(kind) && gate ? compressed_rate : kBf16Bits;
  }
  dense_bits += kBf16Bits;
  stored_bits += is_compressed(kind) && up ? compressed_rate : kBf16Bits;
  return dense_bits / stored_bits;
}

ExpertBytes Representation::expert_bytes(const ModelSpec& model, const Deployment& deployment) const {
  const std::int64_t H = model.hidden;
  const std::int64_t I = model.intermediate_per_rank(deployment.tp);
  const std::int64_t dense = H * I * deployment.dtype_bytes();
  auto first_gemm = [&](bool compressed) {
    ProjectionBytes p;
    if (!compressed || kind == RepresentationKind::dense_bf16) {
      p.dense_bytes = dense;
    } else if (kind == RepresentationKind::mxfp4) {
      p.dense_bytes = H * I / 2 + (H / kMxBlock) * I;  // 4-bit elements + one byte per 32-element block
    } else {
      if (has_vq()) p.index_bytes = ceil_div((H / d) * I * index_bits, 8);
      if (has_lr()) p.coefficient_bytes = r * I * kBf16Bytes;
    }
    return p;
  };
  ExpertBytes bytes;
  if (model.gated) bytes.gate = first_gemm(compresses_gate(*this, model));
  bytes.up = first_gemm(up);
  bytes.down.dense_bytes = dense;
  return bytes;
}

SharedBytes Representation::shared_bytes_per_layer(const ModelSpec& model) const {
  SharedBytes bytes;
  if (!has_vq() && !has_lr()) return bytes;
  const std::int64_t projections = (compresses_gate(*this, model) ? 1 : 0) + (up ? 1 : 0);
  if (has_vq()) bytes.codebook_bytes = projections * K * d * kBf16Bytes;
  if (has_lr()) bytes.basis_bytes = projections * model.hidden * r * kBf16Bytes;
  return bytes;
}

std::vector<std::string> Representation::problems(const ModelSpec& model, const Deployment& deployment) const {
  std::vector<std::string> out;
  auto need = [&](bool ok, const std::string& message) {
    if (!ok) out.push_back(message);
  };
  const std::string what = "representation " + describe() + ": ";
  if (has_vq()) {
    need(d > 0, what + "d = " + num(d) + " must be positive");
    if (d > 0)
      need(model.hidden % d == 0, what + "d = " + num(d) + " does not divide hidden H = " + num(model.hidden) +
                                      " (each column of H is cut into H/d blocks of length d)");
    need(index_bits == 4 || index_bits == 8 || index_bits == 16,
         what + "index_bits = " + num(index_bits) + " must be 4, 8 or 16");
    if (index_bits > 0 && index_bits <= 16) {
      const std::int64_t limit = std::int64_t{1} << index_bits;
      need(K >= 2 && K <= limit, what + "K = " + num(K) + " is outside 2.." + num(limit) + ", the code words a " +
                                     num(index_bits) + "-bit index" + (index_bits == 8 ? " (uint8)" : "") +
                                     " can address");
    }
  }
  if (kind == RepresentationKind::vq_only) need(r == 0, what + "r = " + num(r) + " must be 0 for vq_only");
  if (kind == RepresentationKind::lr_only) need(r > 0, what + "r = " + num(r) + " must be positive for lr_only");
  if (kind == RepresentationKind::hybrid || kind == RepresentationKind::lr_only) {
    // The limit is the rank of one expert's whole H×I matrix. It is deliberately not min(H, I/tp): D is shared
    // by the experts and by the TP ranks (each rank holds all of D and an I/tp-column slice of C_e), so a rank
    // above I/tp still adds information to the whole matrix, e.g. the measured Qwen3 (d, r) = (8, 384) at
    // TP = 4, where I/tp = 192.
    const std::int64_t limit = std::min(model.hidden, model.expert_intermediate);
    need(r >= 0 && r <= limit, what + "r = " + num(r) + " is outside 0.." + num(limit) + " = min(H = " +
                                   num(model.hidden) + ", I = " + num(model.expert_intermediate) + ")");
  }
  if (kind == RepresentationKind::mxfp4)
    need(model.hidden % kMxBlock == 0, what + "hidden H = " + num(model.hidden) +
                                           " is not a multiple of the MXFP4 block of " + num(kMxBlock));
  if (is_compressed(kind))
    need(up || compresses_gate(*this, model),
         what + "compresses no projection (gate and up both off" + (model.gated ? "" : "; the model has no gate") +
             ")");
  for (const auto& p : deployment_problems(model, deployment)) out.push_back(p.key + ": " + p.message);
  return out;
}

void Representation::validate(const ModelSpec& model, const Deployment& deployment) const {
  std::vector<std::string> list = problems(model, deployment);
  if (!list.empty()) throw InputError(list);
}

}  // namespace stasim
