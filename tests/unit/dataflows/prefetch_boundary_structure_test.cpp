// Static weights issued before the layer input (attention weights and KV cache, router weights, B and D), and
// the kernel boundaries of the unfused router and shared experts; both switched on and off.
#include "decode_fixture.hpp"

namespace stasim::test {
namespace {

DataflowOptions layers(std::int64_t n, bool prefetch = true) {
  DataflowOptions o;
  o.layers = n;
  o.prefetch_static = prefetch;
  return o;
}

TEST(PrefetchStructure, StaticWeightsWaitOnlyForTheRegionTwoLayersBack) {
  Built on = build("qwen3-30b-a3b", "cardan", layers(3));
  const ScheduleGraph& g = on.decode.graph;
  for (const char* name : {"L2.c0.attn.load_k", "L2.c0.attn.qkv.load_w[0]", "L2.c0.router.scores.load_w[0]",
                           "L2.c0.gate.load_D", "L2.c0.up.load_B"}) {
    OpId load = find_named(g, name);
    ASSERT_NE(load, kNoOp) << name;
    // Its dependencies are the last readers of layer 0's static weights (the region alternates between
    // layers): layer 0's attention output, its top-k, its shared round. Nothing of layer 1, not the layer input.
    std::vector<OpId> deps = preds(g, load);
    EXPECT_FALSE(deps.empty()) << name;
    for (OpId d : deps) EXPECT_EQ(g.name(d).rfind("L0.c0.", 0), 0u) << name << " <- " << g.name(d);
    EXPECT_TRUE(waits_for(g, load, find_named(g, "L0.c0.attn.out"))) << name;
  }
  // Layers 0 and 1 have no earlier region to wait for.
  EXPECT_TRUE(preds(g, find_named(g, "L1.c0.attn.load_k")).empty());
  // Without prefetch: the attention's at the layer input, the router's and B/D at the MoE block's.
  Built off = build("qwen3-30b-a3b", "cardan", layers(3, false));
  const ScheduleGraph& h = off.decode.graph;
  auto only_dep = [&](const std::string& load) {
    std::vector<OpId> d = preds(h, find_named(h, load));
    return d.size() == 1 ? h.name(d[0]) : std::string("?");
  };
  EXPECT_EQ(only_dep("L2.c0.attn.load_k"), "L1.c0.moe.residual");
  EXPECT_EQ(only_dep("L2.c0.router.scores.load_w[0]"), "L2.c0.attn.residual");
  EXPECT_EQ(only_dep("L2.c0.gate.load_D"), "L2.c0.attn.residual");
}

TEST(PrefetchStructure, StaticLoadsQueueBehindThePreviousLayersExperts) {
  Built b = build("qwen3-30b-a3b", "dense", layers(2));
  const ScheduleGraph& g = b.decode.graph;
  // Same DMA queue program order as the kernel issues them: layer 1's attention weights come after layer 0's
  // expert weights in every queue they share.
  OpId attn = find_named(g, "L1.c0.attn.qkv.load_w[0]");
  std::size_t queue = g.queue_of(attn);
  std::size_t pos = queue_position(g, attn);
  for (OpId v : g.queues()[queue].ops) {
    if (g.name(v).rfind("L0.c0.e", 0) == 0) {
      EXPECT_LT(queue_position(g, v), pos) << g.name(v);
    }
  }
}

TEST(BoundaryStructure, UnfusedRouterAndSharedExpertsAreKernelsOfTheirOwn) {
  Built b = build("deepseek-v2-lite", "dense", layers(2));
  const ScheduleGraph& g = b.decode.graph;
  // Layer 1 (MoE): the router kernel starts after everything before it, the shared-expert kernel after the
  // router's last op, the routed experts' kernel after the shared experts' last op, on both cores.
  OpId router_w = find_named(g, "L1.c0.router.scores.load_w[0]");
  EXPECT_TRUE(waits_for(g, router_w, find_named(g, "L1.c1.attn.residual")));
  OpId shared_w = find_named(g, "L1.c1.shared.gate.load[0]");
  ASSERT_NE(shared_w, kNoOp);
  EXPECT_TRUE(waits_for(g, shared_w, find_named(g, "L1.c0.router.affinities")));
  OpId expert_w = find_named(g, "L1.c0.e0.load_gate_up[0]");
  ASSERT_NE(expert_w, kNoOp);
  OpId shared_down = find_named(g, "L1.c1.shared.down[0]");
  ASSERT_NE(shared_down, kNoOp);
  EXPECT_TRUE(waits_for(g, expert_w, shared_down));
  // Inside the kernels the router's weights load only after its kernel started (no prefetch across it).
  EXPECT_TRUE(waits_for(g, router_w, find_named(g, "L1.c0.attn.residual")));
  // Qwen3 has no shared experts: the router is part of the MoE kernel and its weights are prefetched.
  Built q = build("qwen3-30b-a3b", "dense", layers(3));
  EXPECT_FALSE(waits_for(q.decode.graph, find_named(q.decode.graph, "L2.c0.router.scores.load_w[0]"),
                         find_named(q.decode.graph, "L2.c0.attn.residual")));
}

TEST(BoundaryStructure, FusionRemovesTheBoundariesAndTopkWaitsOnlyForTheRouterColumns) {
  DataflowOptions o = layers(2);
  o.fuse_projections = true;
  Built b = build("nemotron-3-nano-30b-a3b", "cardan", o);
  const ScheduleGraph& g = b.decode.graph;
  // Layer 1 is Nemotron's first MoE layer (pattern MEMEM*... layer 1 = E).
  OpId topk = find_named(g, "L1.c0.router.affinities");
  ASSERT_NE(topk, kNoOp);
  OpId router_tile = find_named(g, "L1.c0.moe.fused.drain[0]");
  OpId shared_tile = find_named(g, "L1.c0.moe.fused.drain[1]");
  ASSERT_NE(shared_tile, kNoOp);
  EXPECT_TRUE(waits_for(g, topk, router_tile));
  EXPECT_FALSE(waits_for(g, topk, shared_tile));
  // No boundary: the routed experts' private loads do not wait for the shared expert's down projection.
  OpId j = find_named(g, "L1.c0.e0.up.load_J");
  ASSERT_NE(j, kNoOp);
  EXPECT_FALSE(waits_for(g, j, find_named(g, "L1.c0.shared.down[0]")));
}

}  // namespace
}  // namespace stasim::test
