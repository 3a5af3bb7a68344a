#include "dataflows/decode_step.hpp"

#include "dataflows/layer_blocks.hpp"

namespace stasim {

DecodeGraph build_decode_step(const ModelSpec& model, const Deployment& deployment, const Representation& rep,
                              const HardwareConfig& hw, const DataflowOptions& options, const RoutedExperts& routed) {
  DecodeGraph out;
  std::int64_t layer_count = options.layers > 0 ? std::min(options.layers, model.layers) : model.layers;
  // Names ("L12.e5.gate.mm[3]") average well under 48 bytes: one block for them instead of doubling it as it fills.
  const std::size_t ops = static_cast<std::size_t>(layer_count) * 1200 + 2000;
  out.graph.reserve(ops, static_cast<std::size_t>(layer_count) * 2400 + 4000, ops * 48);
  KernelBuilder builder(out.graph, hw, options.dma_queues);
  DecodeContext ctx(model, deployment, rep, hw, options, builder);
  out.experts = ctx.experts;
  std::int64_t layers = options.layers > 0 ? std::min(options.layers, model.layers) : model.layers;
  builder.set_prefix("embed.");
  ctx.h_ready = embedding(ctx);
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    builder.set_prefix("L" + std::to_string(layer) + ".");
    ctx.begin_layer(layer);
    LayerSpan span;
    span.layer = layer;
    span.kind = model.layer_kind(layer);
    if (span.kind == LayerKind::mamba) {
      ctx.h_ready = mamba_block(ctx, layer);
    } else if (model.has_attention(layer)) {
      ctx.h_ready = attention_block(ctx, layer);
    }
    if (model.has_moe(layer)) {
      span.moe_input = ctx.h_ready;
      ctx.h_ready = moe_block(ctx, layer, routed);
      span.moe_output = ctx.h_ready;
    } else if (model.has_dense_mlp(layer)) {
      span.moe_input = ctx.h_ready;
      ctx.h_ready = dense_mlp_block(ctx, layer);
      span.moe_output = ctx.h_ready;
    }
    out.layers.push_back(std::move(span));
  }
  builder.set_prefix("head.");
  lm_head(ctx);
  return out;
}

}  // namespace stasim
