#include "workloads/expert_weights.hpp"

namespace stasim {

const ProjectionWeights* LayerWeights::find(const std::string& name) const {
  for (const ProjectionWeights& projection : projections) {
    if (projection.name == name) return &projection;
  }
  return nullptr;
}

}  // namespace stasim
