// One MoE layer's expert weights in the orientation of docs/cardan.md: for gate and up, W_e ∈ R^{H×I} (o = W_eᵀh);
// for down, W_e ∈ R^{I×H}. Held as float32 column-major Eigen matrices whatever the file's dtype (BF16/FP16/FP32
// are widened exactly). A PyTorch `gate_proj.weight` is stored row-major [I, H]; read as column-major it is
// exactly W_e (H×I), so loading needs no transpose.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace stasim {

// All experts of one projection of one layer.
struct ProjectionWeights {
  std::string name;                      // "gate", "up" or "down"
  std::vector<Eigen::MatrixXf> experts;  // one matrix per expert, all of the same shape
};

struct LayerWeights {
  int layer = 0;
  int hidden = 0;        // H
  int intermediate = 0;  // I (per expert, unsharded)
  std::vector<ProjectionWeights> projections;  // in the order gate, up, down; absent ones are left out

  // nullptr when the layer has no such projection.
  const ProjectionWeights* find(const std::string& name) const;
};

}  // namespace stasim
