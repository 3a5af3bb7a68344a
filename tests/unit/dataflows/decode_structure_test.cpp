// Structure of the decode-step graphs: the tiling's instruction counts, the hybrid's mechanisms as switches
// (reuse, batched gathers, joint accumulation, overlap windows), validity on every shipped model.
#include "decode_fixture.hpp"

namespace stasim::test {
namespace {

DataflowOptions layers(std::int64_t n) {
  DataflowOptions o;
  o.layers = n;
  return o;
}

TEST(DecodeStructure, EveryShippedModelBuildsAValidGraphForBothDataflows) {
  for (const char* model : {"qwen3-30b-a3b", "qwen3-coder-30b-a3b", "olmoe-1b-7b", "deepseek-v2-lite", "gemma-4-26b-a4b",
                            "nemotron-3-nano-30b-a3b", "mixtral-8x7b", "deepseek-v3"}) {
    for (const char* dataflow : {"dense", "cardan"}) {
      SCOPED_TRACE(std::string(model) + " " + dataflow);
      // Six layers reach Nemotron's first attention layer (pattern MEMEM*) and DeepSeek's first MoE layers.
      Built b = build(model, dataflow, layers(6));
      EXPECT_NO_THROW(validate_graph(b.decode.graph, b.hw));
      EXPECT_EQ(b.decode.layers.size(), 6u);
    }
  }
}

// Every op of a decode graph has a name of its own, so `--ops`, `--trace` and the tests can tell them apart:
// Mixtral's dense gate/up runs in several column shards (I per rank 3584) and its xla activation reloads in
// several 512-column tiles; OLMoE at batch 8 with the activation-psum schedule shards its gate/up too.
TEST(DecodeStructure, EveryOpHasItsOwnName) {
  auto duplicates = [](const ScheduleGraph& g) {
    std::vector<std::string> names;
    for (OpId v = 0; v < g.size(); ++v) names.emplace_back(g.name_view(v));
    std::sort(names.begin(), names.end());
    std::vector<std::string> out;
    for (std::size_t i = 1; i < names.size(); ++i)
      if (names[i] == names[i - 1] && (out.empty() || out.back() != names[i])) out.push_back(names[i]);
    return out;
  };
  DataflowOptions o;
  o.layers = 1;
  for (const char* model : {"mixtral-8x7b", "qwen3-30b-a3b"})
    for (const char* dataflow : {"dense", "xla", "cardan", "w4a8", "w4a8-fused"}) {
      std::vector<std::string> dup = duplicates(build(model, dataflow, o).decode.graph);
      EXPECT_TRUE(dup.empty()) << model << " " << dataflow << ": " << dup.size() << " names repeat, e.g. " << dup[0];
    }
  DataflowRegistry registry;
  register_builtin(registry);
  ModelSpec olmoe = shipped_model("olmoe-1b-7b");
  Deployment dep = olmoe.deployment;
  dep.batch = 8;
  o.down.stationary = Stationary::activation;
  o.down.accumulate = Accumulate::psum;  // the running sum's banks leave fewer for gate/up: more column shards
  const Dataflow& dense = registry.find("dense");
  DecodeGraph g = build_decode_step(olmoe, dep, dense.representation(8, 384, 256), shipped_hw(), o, dense.routed);
  std::vector<std::string> dup = duplicates(g.graph);
  EXPECT_TRUE(dup.empty()) << "olmoe batch 8: " << dup.size() << " names repeat, e.g. " << dup[0];
}

// The TP all-reduce runs on device memory between two kernels: the summed block output goes SBUF -> HBM on core
// 0, the all-reduce waits for it, and each core loads the reduced vector HBM -> SBUF before its residual add.
// Qwen3: hidden 2048 x BF16 = 4096 bytes each way.
TEST(DecodeStructure, TheAllReduceGoesThroughHbmBetweenTheBlocks) {
  Built b = build("qwen3-30b-a3b", "dense", layers(1));
  const ScheduleGraph& g = b.decode.graph;
  for (const std::string block : {"attn", "moe"}) {
    SCOPED_TRACE(block);
    const OpId stored = find_named(g, "L0.c0." + block + ".to_hbm");
    const OpId reduced = find_named(g, "L0.c0." + block + ".all_reduce");
    ASSERT_NE(stored, kNoOp);
    ASSERT_NE(reduced, kNoOp);
    EXPECT_EQ(g.op(stored).bytes, 4096u);
    EXPECT_EQ(g.op(stored).src, Location::sbuf);
    EXPECT_EQ(g.op(stored).dst, Location::hbm);
    EXPECT_EQ(preds(g, reduced), std::vector<OpId>{stored});
    for (const char* core : {"c0", "c1"}) {
      const OpId loaded = find_named(g, "L0." + std::string(core) + "." + block + ".from_hbm");
      const OpId residual = find_named(g, "L0." + std::string(core) + "." + block + ".residual");
      ASSERT_NE(loaded, kNoOp);
      EXPECT_EQ(g.op(loaded).bytes, 4096u);
      EXPECT_EQ(g.op(loaded).src, Location::hbm);
      EXPECT_EQ(g.op(loaded).dst, Location::sbuf);
      EXPECT_EQ(preds(g, loaded), std::vector<OpId>{reduced});
      EXPECT_EQ(preds(g, residual), std::vector<OpId>{loaded});
    }
  }
}

TEST(DecodeStructure, DenseTilingGivesTheInstructionCounts) {
  Built b = build("qwen3-30b-a3b", "dense", layers(1));
  const ScheduleGraph& g = b.decode.graph;
  // Qwen3 at batch 1: the cores split H = 2048 (1024 rows each), every core the rank's I = 768 / 4 = 192.
  // Gate: weight [128 of H, 128 of I] stationary, hidden [128, 1] moving: 8 H tiles x 2 I tiles = 16.
  EXPECT_EQ(count_ops(g, ".gate.mm[", "L0.c0.e0."), 16u);
  EXPECT_EQ(count_ops(g, ".up.mm[", "L0.c1.e7."), 16u);
  // Weight-stationary down (the default of a fixed choice): 2 I tiles x 8 H tiles of this core's 1024 columns.
  EXPECT_EQ(count_ops(g, ".down[", "L0.c0.e3."), 16u);
  // One fused gate/up load and two down loads (128 + 64 rows of I) per expert per core, 8 experts.
  EXPECT_EQ(count_ops(g, ".load", "L0.c0.e"), 24u);
  EXPECT_EQ(count_ops(g, ".load", "L0.c1.e"), 24u);
  // p is produced in the down projection's layout: no transpose.
  EXPECT_EQ(count_ops(g, ".transpose[", "L0.c0.e5."), 0u);
  // The partial gate and up sums go to the other core: one 192 x 4-byte transfer each.
  EXPECT_EQ(count_ops(g, ".gate.to_core1[", "L0.c0.e"), 8u);
  EXPECT_EQ(count_ops(g, ".up.to_core0[", "L0.c1.e"), 8u);
}

TEST(DecodeStructure, ActivationStationaryDownUsesWideMatmulsAndALayoutConversion) {
  DataflowOptions o = layers(1);
  o.down = {Stationary::activation, Accumulate::sbuf};
  Built b = build("qwen3-30b-a3b", "dense", o);
  const ScheduleGraph& g = b.decode.graph;
  // p [128 of I, 1] stationary, W_down [128 of I, 512 of H] moving: 2 I tiles x 1024 / 512 = 4 matmuls.
  EXPECT_EQ(count_ops(g, ".down[", "L0.c0.e0."), 4u);
  // [1, 1024] rows back to [128, 8 x 1]: 8 transposes per expert.
  EXPECT_EQ(count_ops(g, ".layout_t[", "L0.c0.e0."), 8u);
}

TEST(DecodeStructure, SharedProjectionsOncePerLayerWithReuseAndPerExpertWithout) {
  Built on = build("qwen3-30b-a3b", "cardan", layers(2));
  // z (weight-stationary: this core's 192 of r's 384 in 2 tiles of 128 + 64, each over all 2048 of H = 16 tiles)
  // and T (128 blocks, 1 token) per projection per core per layer.
  EXPECT_EQ(count_ops(on.decode.graph, ".z_mm[", "L1.c0."), 2u * 2u * 16u);
  EXPECT_EQ(count_ops(on.decode.graph, ".z_drain", "L1.c0."), 2u);
  EXPECT_EQ(count_ops(on.decode.graph, ".T_mm[", "L1.c0."), 2u);
  DataflowOptions off = layers(2);
  off.reuse_shared_projections = false;
  Built b = build("qwen3-30b-a3b", "cardan", off);
  EXPECT_EQ(count_ops(b.decode.graph, ".z_drain", "L1.c0."), 2u * 8u);  // per projection per expert (k = 8)
  // T depends on neither the expert nor its routing: once per layer unless --recompute-table asks for it per expert.
  EXPECT_EQ(count_ops(b.decode.graph, ".T_mm[", "L1.c0."), 2u);
  off.recompute_table = true;
  EXPECT_EQ(count_ops(build("qwen3-30b-a3b", "cardan", off).decode.graph, ".T_mm[", "L1.c0."), 2u * 8u);
  // B and D are still loaded once per layer: they stay resident across the expert loop.
  EXPECT_EQ(count_ops(b.decode.graph, ".load_D", "L1.c0."), 2u);
  EXPECT_EQ(count_ops(b.decode.graph, ".load_B", "L1.c0."), 2u);
}

TEST(DecodeStructure, GathersPerLayerAreOnePerGroupBatchedAndTwoPerExpertUnbatched) {
  auto gathers = [](const Built& b) {
    std::size_t n = 0;
    const ScheduleGraph& g = b.decode.graph;
    for (OpId v = 0; v < g.size(); ++v)
      if (g.op(v).kind == OpKind::gather && g.name(v).rfind("L0.c0.", 0) == 0) ++n;
    return n;
  };
  // Batched: half of the top-8 per call, two groups of four experts, gate and up each.
  Built batched = build("qwen3-30b-a3b", "cardan", layers(1));
  EXPECT_EQ(count_ops(batched.decode.graph, ".gate.gather", "L0.c0.g"), 2u);
  EXPECT_EQ(gathers(batched), 2u * 2u);
  DataflowOptions o = layers(1);
  o.batch_gathers = false;
  EXPECT_EQ(gathers(build("qwen3-30b-a3b", "cardan", o)), 2u * 8u);
}

TEST(DecodeStructure, GatherGroupsAreHalfOfTheModelsTopK) {
  // The same layer of a model routing each token to six experts: ceil(6 / 2) = 3 experts per call, two groups
  // (gate and up each) of three, at (8, 384) as at (2, 0): the size follows the top-k, not the elements.
  DataflowRegistry registry;
  register_builtin(registry);
  HardwareConfig hw = shipped_hw();
  ModelSpec model = shipped_model("qwen3-30b-a3b");
  model.top_k = 6;
  const Dataflow& df = registry.find("cardan");
  for (int d : {8, 2}) {
    SCOPED_TRACE(d);
    DecodeGraph g = build_decode_step(model, model.deployment, df.representation(d, d == 8 ? 384 : 0, 256), hw, layers(1),
                                      df.routed);
    EXPECT_EQ(count_ops(g.graph, ".gate.gather", "L0.c0.g"), 2u);
    EXPECT_NE(find_named(g.graph, "L0.c0.g1.up.gather"), kNoOp);
    EXPECT_EQ(find_named(g.graph, "L0.c0.g2.up.gather"), kNoOp);
    // A call selects its three experts' code words: per partition, (H / d) / 2 cores / 128 partitions blocks x
    // I / tp = 192 columns each: d = 8: 1 x 192, 3 experts = 576; d = 2: 4 x 192 = 768, 3 experts = 2304.
    EXPECT_EQ(g.graph.op(find_named(g.graph, "L0.c0.g0.gate.gather")).free, d == 8 ? 576u : 2304u);
  }
}

TEST(DecodeStructure, JointAccumulationSkipsTheStandaloneVectors) {
  Built joint = build("qwen3-30b-a3b", "cardan", layers(1));
  EXPECT_EQ(count_ops(joint.decode.graph, ".vq_drain", "L0."), 0u);
  DataflowOptions o = layers(1);
  o.joint_psum_accumulation = false;
  Built split = build("qwen3-30b-a3b", "cardan", o);
  // Each expert's gate and up write their VQ and LR parts to SBUF and add them: 2 cores x 8 experts x 2.
  EXPECT_EQ(count_ops(split.decode.graph, ".vq_drain", "L0."), 32u);
  EXPECT_EQ(count_ops(split.decode.graph, ".lr_drain", "L0."), 32u);
  EXPECT_EQ(count_ops(split.decode.graph, ".add[", "L0."), 32u);
}

TEST(DecodeStructure, VqOnlyHasNoLowRankPartAndLrOnlyNoGathers) {
  Built vq = build("qwen3-30b-a3b", "vq-only", layers(1), 2, 384, 256);
  EXPECT_EQ(vq.rep.r, 0);
  EXPECT_EQ(count_ops(vq.decode.graph, ".lr_mm[", "L0."), 0u);
  EXPECT_EQ(count_ops(vq.decode.graph, ".load_D", "L0."), 0u);
  Built lr = build("qwen3-30b-a3b", "lr-only", layers(1));
  EXPECT_EQ(count_ops(lr.decode.graph, "gather", "L0."), 0u);
  EXPECT_GT(count_ops(lr.decode.graph, ".lr_mm[", "L0."), 0u);
}

TEST(DecodeStructure, HybridReadsFewerHbmBytesExactlyAsTheStorageArithmeticSays) {
  auto hbm_read = [](const Built& b) {
    std::uint64_t bytes = 0;
    const ScheduleGraph& g = b.decode.graph;
    for (OpId v = 0; v < g.size(); ++v)
      if (g.op(v).engine == Engine::dma && g.op(v).src == Location::hbm) bytes += g.op(v).bytes;
    return bytes;
  };
  Built dense = build("qwen3-30b-a3b", "dense", layers(2));
  Built hybrid = build("qwen3-30b-a3b", "cardan", layers(2));
  const Deployment& dep = dense.model.deployment;
  // Per layer: k experts' bytes (per rank, split over the cores by H) differ; the hybrid adds D once per rank
  // (split over the cores by rows) and B on every core. Everything else (attention, router, LM head) is equal.
  std::int64_t k = dense.model.top_k;
  std::int64_t dense_expert = dense.rep.expert_bytes(dense.model, dep).total();
  std::int64_t hybrid_expert = hybrid.rep.expert_bytes(hybrid.model, dep).total();
  SharedBytes shared = hybrid.rep.shared_bytes_per_layer(hybrid.model);
  std::int64_t per_layer = k * (dense_expert - hybrid_expert) - shared.basis_bytes - std::int64_t(hybrid.hw.lnc) * shared.codebook_bytes;
  // Qwen3 per rank: dense expert 3 x 2048 x 192 x 2 = 2359296 B; hybrid gate/up: J 256 x 192 + C 384 x 192 x 2
  // = 196608 per projection, + down 786432 = 1179648 B; D: 2 x 2048 x 384 x 2 = 3145728; B: 2 x 256 x 8 x 2 = 8192.
  EXPECT_EQ(dense_expert, 2359296);
  EXPECT_EQ(hybrid_expert, 1179648);
  EXPECT_EQ(per_layer, 8 * (2359296 - 1179648) - 3145728 - 2 * 8192);
  EXPECT_EQ(std::int64_t(hbm_read(dense)) - std::int64_t(hbm_read(hybrid)), 2 * per_layer);
}

}  // namespace
}  // namespace stasim::test
