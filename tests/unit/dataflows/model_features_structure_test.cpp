// Model features of docs/models.md in the decode graph: Nemotron's Mamba/attention/MoE pattern, non-gated
// ReLU² and sigmoid router; DeepSeek-V2-Lite's dense first layer and shared experts; Gemma 4's parallel dense
// MLP in every layer with GeGLU on ScalarE. Bytes are spelled out from the model shapes.
#include "decode_fixture.hpp"

namespace stasim::test {
namespace {

DataflowOptions layers(std::int64_t n) {
  DataflowOptions o;
  o.layers = n;
  return o;
}

// HBM bytes read by the DMA ops of `layer` whose label contains `part`.
std::uint64_t loaded(const ScheduleGraph& g, const std::string& layer, const std::string& part) {
  std::uint64_t bytes = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.engine == Engine::dma && op.src == Location::hbm && g.name(v).rfind(layer, 0) == 0 &&
        g.name(v).find(part) != std::string::npos)
      bytes += op.bytes;
  }
  return bytes;
}

const Op* find_op(const ScheduleGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v)
    if (g.name(v) == name) return &g.op(v);
  return nullptr;
}

TEST(ModelFeatures, NemotronLayersFollowTheHybridPattern) {
  Built b = build("nemotron-3-nano-30b-a3b", "dense");
  const std::string pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  ASSERT_EQ(b.decode.layers.size(), pattern.size());
  const ScheduleGraph& g = b.decode.graph;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    SCOPED_TRACE(i);
    std::string p = "L" + std::to_string(i) + ".c0.";
    LayerKind kind = b.decode.layers[i].kind;
    std::size_t mamba = count_ops(g, "mamba.", p), attn = count_ops(g, "attn.", p), router = count_ops(g, "router.", p);
    if (pattern[i] == 'M') {
      EXPECT_EQ(kind, LayerKind::mamba);
      EXPECT_GT(mamba, 0u);
      EXPECT_EQ(attn + router, 0u);
    } else if (pattern[i] == 'E') {
      EXPECT_EQ(kind, LayerKind::moe);
      EXPECT_GT(router, 0u);
      EXPECT_EQ(attn + mamba, 0u);
    } else {
      EXPECT_EQ(kind, LayerKind::attention);
      EXPECT_GT(attn, 0u);
      EXPECT_EQ(router + mamba, 0u);
    }
  }
}

TEST(ModelFeatures, NemotronExpertsAreNonGatedReluSquaredWithASigmoidRouter) {
  Built b = build("nemotron-3-nano-30b-a3b", "dense", layers(2));  // layer 1 is MoE
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_EQ(count_ops(g, ".gate.", "L1.c0.e"), 0u);
  EXPECT_GT(count_ops(g, ".up.mm[", "L1.c0.e0."), 0u);
  const Op* phi = find_op(g, "L1.c0.e0.phi[0]");
  ASSERT_NE(phi, nullptr);
  EXPECT_EQ(phi->engine, Engine::scalar);
  EXPECT_EQ(count_ops(g, "router.sigmoid", "L1."), 2u);
  EXPECT_EQ(count_ops(g, "router.exp", "L1."), 0u);
  // One shared expert, I = 3712, non-gated: up and down, 2 x 2688 x 3712/4 x 2 B = 9977856 per rank.
  EXPECT_EQ(loaded(g, "L1.", ".shared."), 9977856u);
}

TEST(ModelFeatures, DeepSeekV2LiteHasADenseFirstLayerAndSharedExperts) {
  Built b = build("deepseek-v2-lite", "dense", layers(2));
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_EQ(b.decode.layers[0].kind, LayerKind::attention_dense);
  EXPECT_EQ(b.decode.layers[1].kind, LayerKind::attention_moe);
  EXPECT_EQ(count_ops(g, "router.", "L0."), 0u);
  // Layer 0: dense SwiGLU MLP, I = 10944: 3 x 2048 x 10944/4 x 2 B = 33619968 per rank, and the all-reduced
  // output loaded back from HBM by each of the two cores: 2 x 2048 x 2 B = 8192.
  EXPECT_EQ(loaded(g, "L0.", ".mlp."), 33619968u + 8192u);
  // Layer 1: two shared experts run as one 2816-wide MLP: 3 x 2048 x 2816/4 x 2 B = 8650752 per rank.
  EXPECT_EQ(loaded(g, "L1.", ".shared."), 8650752u);
  EXPECT_EQ(count_ops(g, "router.exp", "L1."), 2u);
}

TEST(ModelFeatures, GemmaRunsAParallelDenseGegluMlpInEveryLayer) {
  Built b = build("gemma-4-26b-a4b", "dense", layers(6));
  const ScheduleGraph& g = b.decode.graph;
  for (int layer = 0; layer < 6; ++layer) {
    std::string p = "L" + std::to_string(layer) + ".";
    // I = 2112: 3 x 2816 x 2112/4 x 2 B = 8921088 per rank, next to the routed experts.
    EXPECT_EQ(loaded(g, p, ".parallel_mlp."), 8921088u);
    EXPECT_GT(count_ops(g, ".gate.mm[", p + "c0.e0."), 0u);
    const Op* phi = find_op(g, p + "c0.parallel_mlp.phi[0]");
    ASSERT_NE(phi, nullptr);
    EXPECT_EQ(phi->engine, Engine::scalar);
  }
}

}  // namespace
}  // namespace stasim::test
