// One decode step of one TP rank as a schedule graph: embedding; per layer the attention block (or Mamba
// mixer), then the MoE block of the chosen dataflow (or a dense MLP); final norm and LM head. Records where
// each layer's blocks begin and end so reports can give the MoE-block time per layer.
#pragma once

#include <string>
#include <vector>

#include "dataflows/moe_block.hpp"

namespace stasim {

struct LayerSpan {
  std::int64_t layer = 0;
  LayerKind kind = LayerKind::attention_moe;
  std::vector<OpId> moe_input;   // per core: the MoE (or MLP) block's input is ready ("" when none)
  std::vector<OpId> moe_output;  // per core: its output is ready
};

struct DecodeGraph {
  ScheduleGraph graph;
  std::vector<LayerSpan> layers;
  ExpertGroups experts;  // the routed experts each MoE layer ran, with their tokens
};

DecodeGraph build_decode_step(const ModelSpec& model, const Deployment& deployment, const Representation& rep,
                              const HardwareConfig& hw, const DataflowOptions& options, const RoutedExperts& routed);

}  // namespace stasim
