#include "workloads/matched_rate.hpp"

#include <algorithm>
#include <cmath>

namespace stasim {

Representation matched_lr_only(const Representation& hybrid, const ModelSpec& model) {
  const double target = hybrid.bits_per_weight(model);
  Representation best = Representation::lr_only(1);
  double best_gap = std::abs(best.bits_per_weight(model) - target);
  const std::int64_t limit = std::min(model.hidden, model.expert_intermediate);
  for (std::int64_t r = 2; r <= limit; ++r) {
    const Representation candidate = Representation::lr_only(r);
    const double gap = std::abs(candidate.bits_per_weight(model) - target);
    if (gap < best_gap) {
      best = candidate;
      best_gap = gap;
    }
  }
  best.gate = hybrid.gate;
  best.up = hybrid.up;
  return best;
}

Representation matched_vq_only(const Representation& hybrid, const ModelSpec& model) {
  const double target = hybrid.bits_per_weight(model);
  Representation best;
  double best_gap = 0.0;
  bool found = false;
  // Block lengths up to 64, the k-means kernel's limit; d' = 1 is scalar quantization.
  for (std::int64_t d = 1; d <= std::min<std::int64_t>(model.hidden, 64); ++d) {
    if (model.hidden % d != 0) continue;
    Representation candidate = Representation::vq_only(d, hybrid.K);
    candidate.index_bits = hybrid.index_bits;
    const double gap = std::abs(candidate.bits_per_weight(model) - target);
    if (!found || gap < best_gap) {
      best = candidate;
      best_gap = gap;
      found = true;
    }
  }
  best.gate = hybrid.gate;
  best.up = hybrid.up;
  return best;
}

ModelSpec with_layer_shape(const ModelSpec& model, int hidden, int intermediate, int experts) {
  ModelSpec shaped = model;
  shaped.hidden = hidden;
  shaped.expert_intermediate = intermediate;
  shaped.experts = experts;
  return shaped;
}

}  // namespace stasim
