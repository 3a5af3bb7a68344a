// Surrounding-projection fusion: the router and the shared experts' gate/up of DeepSeek-V2-Lite and Nemotron
// stream as one wider weight; a dense layer's gate and up likewise.
#include <algorithm>

#include "decode_fixture.hpp"

namespace stasim::test {
namespace {

DataflowOptions fused(std::int64_t layers) {
  DataflowOptions o;
  o.layers = layers;
  o.fuse_projections = true;
  return o;
}

// Moving widths (n) of the matmuls whose label starts with `prefix` and contains `part`, in order of tiles.
std::vector<std::uint32_t> widths(const ScheduleGraph& g, const std::string& prefix, const std::string& part) {
  std::vector<std::uint32_t> out;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.kind == OpKind::matmul && g.name(v).rfind(prefix, 0) == 0 && g.name(v).find(part) != std::string::npos) out.push_back(op.n);
  }
  return out;
}

TEST(FusionStructure, DeepSeekRouterAndSharedExpertsAreOneProjectionRouterFirst) {
  Built b = build("deepseek-v2-lite", "dense", fused(2));
  const ScheduleGraph& g = b.decode.graph;
  // Core 0 of layer 1: router 64 / 2 = 32 columns, then shared gate and up 2816 / 4 / 2 = 352 each: the router's
  // columns in a tile of their own, then 704 columns in tiles of 512 and 192; 16 k-tiles each (H = 2048).
  std::vector<std::uint32_t> n = widths(g, "L1.c0.moe.fused.mm[", "");
  ASSERT_EQ(n.size(), 48u);
  EXPECT_EQ(std::count(n.begin(), n.end(), 32u), 16);
  EXPECT_EQ(std::count(n.begin(), n.end(), 512u), 16);
  EXPECT_EQ(std::count(n.begin(), n.end(), 192u), 16);
  EXPECT_EQ(n.front(), 32u);
  EXPECT_EQ(count_ops(g, "router.scores", "L1."), 0u);
  EXPECT_EQ(count_ops(g, ".shared.gate.", "L1."), 0u);
  // Without fusion: the FP32 router (32 columns) and the gate and up (352 each) are three chains.
  Built plain = build("deepseek-v2-lite", "dense", [] { DataflowOptions o; o.layers = 2; return o; }());
  EXPECT_EQ(widths(plain.decode.graph, "L1.c0.router.scores.mm[", "").size(), 16u);
  EXPECT_EQ(widths(plain.decode.graph, "L1.c0.shared.gate.mm[", "").size(), 16u);
  // The dense first layer: gate and up (10944 / 4 / 2 = 1368 each) as one 2736-column weight, 6 tiles.
  std::vector<std::uint32_t> mlp = widths(g, "L0.c0.mlp.fused.mm[", "");
  EXPECT_EQ(mlp.size(), 6u * 16u);
  EXPECT_EQ(std::count(mlp.begin(), mlp.end(), 176u), 16);  // 2736 - 5 x 512
}

TEST(FusionStructure, NemotronRouterJoinsTheSharedUpProjection) {
  Built b = build("nemotron-3-nano-30b-a3b", "dense", fused(2));
  // Router 128 / 2 = 64 columns, then shared up (non-gated) 3712 / 4 / 2 = 464: tiles of 64 and 464, so top-k
  // waits for a [2688, 64] chunk, not for a 512-column one.
  std::vector<std::uint32_t> n = widths(b.decode.graph, "L1.c0.moe.fused.mm[", "");
  ASSERT_EQ(n.size(), 2u * 21u);  // H = 2688: 21 k-tiles
  EXPECT_EQ(std::count(n.begin(), n.end(), 64u), 21);
  EXPECT_EQ(std::count(n.begin(), n.end(), 464u), 21);
  EXPECT_NO_THROW(validate_graph(b.decode.graph, b.hw));
}

}  // namespace
}  // namespace stasim::test
