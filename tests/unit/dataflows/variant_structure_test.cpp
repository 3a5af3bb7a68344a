// Structure of the xla and w4a8 variants: intermediates through HBM and the routing boundary for xla; w4a8 the
// same compiler flow with MX gate/up kernels and a layout kernel before the BF16 down; the MX matmuls, scale
// DMAs, one conversion per activated expert and 4.25 bits per gate/up weight inside the megakernel for w4a8-fused.
#include "decode_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

DataflowOptions one_layer() {
  DataflowOptions o;
  o.layers = 1;
  return o;
}

TEST(VariantStructure, XlaWritesEveryIntermediateToHbmAndReadsItBack) {
  Built b = build("qwen3-30b-a3b", "xla", one_layer());
  const ScheduleGraph& g = b.decode.graph;
  std::uint64_t spilled = 0, reloaded = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.engine != Engine::dma || g.phases()[op.phase] != "intermediate") continue;
    if (op.dst == Location::hbm) spilled += op.bytes;
    if (op.src == Location::hbm) reloaded += op.bytes;
  }
  // Per core and expert (Qwen3: 96 columns per core, T = the expert's 1 token): gate, up and p^T out
  // [1, 96] BF16 = 192 B each; y_e and the running sum [2048, 1] FP32 = 8192 B each. Plus the router's
  // normalized hidden (2048 x 2 B) and routes (8 x 8 B) once per core.
  std::uint64_t per_expert_spill = 3 * 192 + 2 * 8192;
  EXPECT_EQ(spilled, 2 * (8 * per_expert_spill + 4096 + 64));
  // Reads: gate and up back for φ, p^T back for down, y_e and (after the first expert) the sum for the
  // combine, the final sum; the router's outputs.
  std::uint64_t per_expert_reload = 3 * 192 + 8192;
  EXPECT_EQ(reloaded, 2 * (8 * per_expert_reload + 7 * 8192 + 8192 + 4096 + 64));
  // One kernel per op: the gate and up projections drain to SBUF (no PSUM shared with φ).
  EXPECT_EQ(count_ops(g, ".gate.drain[", "L0.c0.e"), 8u);
}

TEST(VariantStructure, W4a8IsTheCompilerFlowWithMxGateUpAndALayoutKernel) {
  Built b = build("qwen3-30b-a3b", "w4a8", one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // The hidden quantized to MX once per layer and core, in a kernel of its own.
  EXPECT_EQ(count_ops(g, "moe.h_quantize_mx", "L0.c0."), 1u);
  EXPECT_EQ(count_ops(g, "moe.h_quantize_mx", "L0."), 2u);
  // Every core holds 96 of I_rank = 192 columns (I split as in xla) and all of H = 2048: per expert and
  // projection ceil(2048 / 512) = 4 MX matmuls (K = 128 x mx_k_factor 4 = 512 rows) x 1 tile of 128 columns.
  EXPECT_EQ(count_ops(g, ".gate.mx_mm[", "L0.c0.e0."), 4u);
  EXPECT_EQ(count_ops(g, ".mx_mm[", "L0.c0.e"), 8u * 2u * 4u);
  // The layout kernel of each activated expert's gate and up (8 x 2 per core): one unswizzle, one transpose back
  // and one conversion per 128 columns (96 columns: one).
  EXPECT_EQ(count_ops(g, ".mx_unswizzle", "L0.c0.e"), 8u * 2u);
  EXPECT_EQ(count_ops(g, ".mx_convert", "L0.c0.e"), 8u * 2u);
  std::uint64_t spilled = 0, gate_up = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.kind == OpKind::matmul && g.name(v).find(".mx_mm[") != std::string::npos) {
      EXPECT_EQ(op.dtype, Dtype::mxfp4);
      EXPECT_EQ(op.k, 512u);
    }
    if (op.engine != Engine::dma || g.name(v).rfind("L0.c0.", 0) != 0) continue;
    if (g.phases()[op.phase] == "intermediate" && op.dst == Location::hbm) spilled += op.bytes;
    if (g.name(v).find(".gate.load") != std::string::npos || g.name(v).find(".up.load") != std::string::npos) gate_up += op.bytes;
  }
  // Core 0 writes to HBM: the normalized hidden (2048 x 2 B) and routes (8 x 8 B), the MX hidden (2048 elements of
  // 1 B + 64 scales); per expert gate and up twice (the MX kernel's swizzled output, then the layout kernel's), p^T
  // (each [1, 96] BF16 = 192 B), y_e and the running sum ([2048, 1] FP32 = 8192 B each).
  EXPECT_EQ(spilled, 4096u + 64u + 2048u + 64u + 8u * (5u * 192u + 2u * 8192u));
  // Its gate/up weights: elements 2048 x 96 / 2 + scales 64 x 96 per projection, 2 projections x 8 experts.
  EXPECT_EQ(gate_up, 8u * 2u * (2048u * 96u / 2u + 64u * 96u));
}

TEST(VariantStructure, W4a8FusedRunsMxMatmulsAndConvertsEveryActivatedExpertsOutput) {
  Built b = build("qwen3-30b-a3b", "w4a8-fused", one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // Per activated expert (k = 8 at batch 1), projection and 128 columns of I_rank = 192 (2): a conversion back
  // to [128 of I, T] on each core, after the swizzled output was drained and unswizzled by TensorE.
  EXPECT_EQ(count_ops(g, ".mx_convert", "L0.c0.e"), 8u * 2u * 2u);
  EXPECT_EQ(count_ops(g, ".mx_convert", "L0.c1.e"), 8u * 2u * 2u);
  EXPECT_EQ(count_ops(g, ".mx_unswizzle", "L0.c0.e"), 8u * 2u);
  EXPECT_EQ(count_ops(g, ".mx_transpose", "L0.c0.e"), 8u * 2u * 2u);
  // MX matmul contracts 128 x mx_k_factor (4) = 512 rows: this core's H = 1024 -> 2 contraction tiles, x 2
  // tiles of 128 columns (I_rank = 192).
  EXPECT_EQ(count_ops(g, ".gate.mx_mm[", "L0.c0.e0."), 4u);
  std::uint64_t gate_up = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.kind == OpKind::matmul && g.name(v).find(".mx_mm[") != std::string::npos) {
      EXPECT_EQ(op.dtype, Dtype::mxfp4);
      EXPECT_EQ(op.k, 512u);
    }
    if (op.engine == Engine::dma && g.name(v).rfind("L0.", 0) == 0 &&
        (g.name(v).find(".gate.load") != std::string::npos || g.name(v).find(".up.load") != std::string::npos))
      gate_up += op.bytes;
  }
  // Gate/up bytes: elements H x I_rank / 2 + scales (H / 32) x I_rank per projection, = 4.25 bits per weight:
  // 2 x (2048 x 192 / 2 + 64 x 192) = 417792 per expert, x 8 experts (both cores together hold I_rank).
  std::int64_t per_expert = b.rep.expert_bytes(b.model, b.model.deployment).gate_up_bytes();
  EXPECT_EQ(per_expert, 417792);
  EXPECT_EQ(gate_up, 8u * 417792u);
  EXPECT_DOUBLE_EQ(8.0 * per_expert / (2.0 * 2048 * 192), 4.25);
}

TEST(VariantStructure, W4a8NeedsMxMatmuls) {
  DataflowRegistry registry;
  register_builtin(registry);
  ModelSpec m = shipped_model("qwen3-30b-a3b");
  HardwareConfig trn2 = shipped_hw("trn2");
  for (const char* name : {"w4a8", "w4a8-fused"}) {
    const Dataflow& df = registry.find(name);
    Representation rep = df.representation(8, 384, 256);
    EXPECT_THROW(build_decode_step(m, m.deployment, rep, trn2, one_layer(), df.routed), InputError) << name;
  }
}

TEST(VariantStructure, EveryShippedModelBuildsAValidGraphForEveryDataflow) {
  DataflowRegistry registry;
  register_builtin(registry);
  for (const char* model : {"qwen3-30b-a3b", "qwen3-coder-30b-a3b", "olmoe-1b-7b", "deepseek-v2-lite", "gemma-4-26b-a4b",
                            "nemotron-3-nano-30b-a3b", "mixtral-8x7b", "deepseek-v3"})
    for (const std::string& dataflow : registry.names()) {
      SCOPED_TRACE(std::string(model) + " " + dataflow);
      DataflowOptions o;
      o.layers = 6;
      Built b = build(model, dataflow, o, dataflow == "vq-only" ? 2 : 8, dataflow == "vq-only" ? 0 : 384);
      EXPECT_NO_THROW(validate_graph(b.decode.graph, b.hw));
    }
}

}  // namespace
}  // namespace stasim::test
