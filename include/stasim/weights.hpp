// The public header for expert weights and their representations, as `stasim represent`, `stasim
// export-weights` and `stasim sweep --weights` use them: read one layer's experts from a checkpoint or draw a
// seeded synthetic layer (WeightsSource), build the hybrid LR+VQ representation from them and measure its NMSE
// against VQ-only and LR-only at matched storage rates, write it or the layer as .safetensors.
//
//   stasim::ModelSpec model = stasim::load_model(stasim::resolve_model("qwen3-30b-a3b"));
//   stasim::WeightsSource source = stasim::WeightsSource::parse("synthetic:size=small");
//   stasim::LayerWeights layer = source.load(model, stasim::first_moe_layer(model), {"gate", "up"});
//   stasim::ActivationSamples acts = stasim::load_activations("synthetic", layer.hidden, 256, 1);
//   auto rows = stasim::compare_representations(layer, acts.calibration, acts.evaluation, model, settings, &built);
//
// Declared in sim/studies/ (weights_source.hpp, represent_study.hpp: the activations and the table;
// represent_bench.hpp: the timing of `stasim bench --represent`) and in
// workloads/ (representation_builder.hpp, matched_rate.hpp, representation_file.hpp, layer_weights_loader.hpp,
// layer_weights_writer.hpp, synthetic_weights.hpp, safetensors_file.hpp).
#pragma once

#include "sim/studies/represent_bench.hpp"
#include "sim/studies/represent_study.hpp"
#include "sim/studies/weights_source.hpp"
#include "stasim/stasim.hpp"
#include "workloads/layer_weights_loader.hpp"
#include "workloads/layer_weights_writer.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/representation_builder.hpp"
#include "workloads/representation_file.hpp"
#include "workloads/safetensors_file.hpp"
#include "workloads/synthetic_weights.hpp"
