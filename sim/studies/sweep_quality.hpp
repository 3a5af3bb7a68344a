// The quality columns of `stasim sweep --weights`: for each distinct representation of the grid, one layer's
// gate/up experts (sim/studies/weights_source.hpp: a checkpoint or a seeded synthetic layer) are compressed once
// (workloads/representation_builder.hpp) and the NMSE measured on seeded synthetic activations; every point with
// that representation gets the same nmse. Built in the sweep's own process before the points run in their
// children, so each representation is built once however many points share it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <Eigen/Dense>

#include "sim/studies/weights_source.hpp"
#include "workloads/expert_weights.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {

struct LayerQuality {
  double nmse = 0.0;
  double bits_per_weight = 0.0;  // on the measured layer's shapes (H, I, E)
};

class SweepQuality {
 public:
  // `layer` < 0: the model's first MoE layer. `threads` for the builder.
  SweepQuality(WeightsSource source, std::int64_t layer, int threads);

  // What the points of `model` record as their weights input: "<weights>@<layer>".
  std::string label(const ModelSpec& model) const;
  // Loads (or generates) `model`'s layer and its activations once; InputError for a bad checkpoint (missing or
  // malformed file, missing tensor, wrong shape) so the sweep stops before any point runs.
  void load(const ModelSpec& model) { layer_of(model); }
  // The quality of `rep` on `model`'s layer, built on first use (dense BF16: nmse 0 at 16 bits). InputError
  // when the representation does not fit the layer (e.g. r > I of a small synthetic layer).
  LayerQuality quality(const ModelSpec& model, const Representation& rep);

 private:
  struct Layer {
    LayerWeights weights;
    Eigen::MatrixXf calibration, evaluation;
  };
  const Layer& layer_of(const ModelSpec& model);
  int layer_index(const ModelSpec& model) const;

  WeightsSource source_;
  std::int64_t layer_ = -1;
  int threads_ = 0;
  std::map<std::string, std::unique_ptr<Layer>> layers_;  // by model name
  std::map<std::string, LayerQuality> built_;             // by model name + representation
};

}  // namespace stasim
