// Who writes each DMA's descriptors: the routed experts' weight loads (addresses from the router's indices in
// SBUF) use the hardware DGE where the core has one (trn2/trn3) and GpSimd's software DGE otherwise (trn1) or when
// asked (--routed-swdge); the hybrid's private loads (J_e, C_e) use GpSimd's software DGE unless asked otherwise
// (--private-hwdge); every static load (attention, router, B/D, KV cache) keeps host-written descriptors.
#include <algorithm>

#include "decode_fixture.hpp"

namespace stasim::test {
namespace {

Built build_on(const std::string& hw, const std::string& model, const std::string& dataflow, DataflowOptions o) {
  DataflowRegistry registry;
  register_builtin(registry);
  o.layers = 1;
  Built b{shipped_model(model), shipped_hw(hw), {}, o, {}};
  const Dataflow& df = registry.find(dataflow);
  b.rep = df.representation(8, 384, 256);
  b.decode = build_decode_step(b.model, b.model.deployment, b.rep, b.hw, b.options, df.routed);
  return b;
}

bool routed(const std::string& name) {
  return name.find(".load_J") != std::string::npos || name.find(".load_C") != std::string::npos ||
         name.find(".load_down[") != std::string::npos || name.find(".load_gate_up[") != std::string::npos;
}

struct Modes {
  std::size_t routed_hw = 0, routed_sw = 0, routed_static = 0, static_other = 0, dynamic_other = 0, descriptors = 0;
};

Modes modes(const ScheduleGraph& g) {
  Modes m;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    if (op.kind == OpKind::descriptors) ++m.descriptors;
    if (op.engine != Engine::dma || op.src != Location::hbm) continue;
    if (routed(g.name(v))) {
      if (op.dge == DgeMode::hwdge) ++m.routed_hw;
      else if (op.dge == DgeMode::swdge) ++m.routed_sw;
      else ++m.routed_static;
    } else {
      if (op.dge == DgeMode::static_) ++m.static_other;
      else ++m.dynamic_other;
    }
  }
  return m;
}

TEST(DgeStructure, PrivateLoadsUseSoftwareDgeWDownTheHardwareDgeAndStaticLoadsHostDescriptors) {
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", {});
  const ScheduleGraph& g = b.decode.graph;
  Modes m = modes(g);
  // Per core, 8 experts: J and C of gate and up (4 private loads, software DGE) and 192 / 128 -> 2 down tiles
  // (hardware DGE); 2 cores.
  EXPECT_EQ(m.routed_sw, 2u * 8u * 4u);
  EXPECT_EQ(m.routed_hw, 2u * 8u * 2u);
  EXPECT_EQ(m.routed_static, 0u);
  EXPECT_EQ(m.dynamic_other, 0u);  // attention, KV cache, router, B and D: host descriptors
  EXPECT_GT(m.static_other, 0u);
  EXPECT_EQ(m.descriptors, m.routed_sw);  // one GpSimd descriptor op per private load
  EXPECT_EQ(g.op(find_named(g, "L0.c0.gate.load_D")).dge, DgeMode::static_);
  EXPECT_EQ(g.op(find_named(g, "L0.c0.e3.up.load_J")).dge, DgeMode::swdge);
  EXPECT_EQ(g.op(find_named(g, "L0.c0.e3.up.load_C")).dge, DgeMode::swdge);
  EXPECT_EQ(g.op(find_named(g, "L0.c0.e3.load_down[1]")).dge, DgeMode::hwdge);
  OpId gen = find_named(g, "L0.c0.e3.up.load_J.dge");
  ASSERT_NE(gen, kNoOp);
  EXPECT_EQ(g.op(gen).engine, Engine::gpsimd);
  EXPECT_EQ(preds(g, find_named(g, "L0.c0.e3.up.load_J")), std::vector<OpId>{gen});
}

TEST(DgeStructure, PrivateHardwareDgeOnRequestLeavesGpSimdNoDescriptorWork) {
  DataflowOptions o;
  o.private_hwdge = true;
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", o);
  Modes m = modes(b.decode.graph);
  // Every routed load on the hardware DGE: 6 per expert (J, C of gate and up, 2 down tiles), 8 experts, 2 cores.
  EXPECT_EQ(m.routed_hw, 2u * 8u * 6u);
  EXPECT_EQ(m.routed_sw, 0u);
  EXPECT_EQ(m.descriptors, 0u);
  // On a core without a hardware DGE the request cannot be met: GpSimd writes them (trn1).
  Built trn1 = build_on("trn1", "qwen3-30b-a3b", "cardan", o);
  ASSERT_EQ(trn1.hw.dma.hwdge_instances, 0u);
  EXPECT_EQ(modes(trn1.decode.graph).routed_hw, 0u);
}

TEST(DgeStructure, DenseExpertWeightsAreDynamicToo) {
  Built b = build_on("trn3", "qwen3-30b-a3b", "dense", {});
  Modes m = modes(b.decode.graph);
  // Per core and expert: one fused gate/up load over the core's half of H and 2 down tiles; 8 experts, 2 cores.
  EXPECT_EQ(m.routed_hw, 2u * 8u * 3u);
  EXPECT_EQ(m.routed_static + m.routed_sw + m.dynamic_other, 0u);
}

TEST(DgeStructure, W4a8ScalesUseSoftwareDgeAndItsPackedWeightsTheHardwareDge) {
  // nki-library's selective MX kernel places each expert's scales on partitions with gaps by a vector-offset DMA,
  // which only software DGE generates; its packed weights are plain expert-indexed tiles.
  Built b = build_on("trn3", "qwen3-30b-a3b", "w4a8", {});
  const ScheduleGraph& g = b.decode.graph;
  std::size_t scales = 0, packed = 0, generators = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const std::string& name = g.name(v);
    const Op& op = g.op(v);
    if (op.kind == OpKind::descriptors) ++generators;
    if (op.kind != OpKind::transfer) continue;
    if (name.find(".load_scales[") != std::string::npos) {
      EXPECT_EQ(op.dge, DgeMode::swdge) << name;
      ++scales;
    } else if (name.find(".gate.load[") != std::string::npos || name.find(".up.load[") != std::string::npos) {
      EXPECT_EQ(op.dge, DgeMode::hwdge) << name;
      ++packed;
    }
  }
  // Per core, 8 experts x gate and up x one 512-column tile (192 columns): 16 scale loads and 16 packed loads.
  EXPECT_EQ(scales, 2u * 8u * 2u);
  EXPECT_EQ(packed, 2u * 8u * 2u);
  EXPECT_EQ(generators, scales);
}

TEST(DgeStructure, SoftwareDgeOnRequestPutsOneGpSimdDescriptorOpBeforeEachRoutedLoad) {
  DataflowOptions o;
  o.routed_swdge = true;
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", o);
  const ScheduleGraph& g = b.decode.graph;
  Modes m = modes(g);
  EXPECT_EQ(m.routed_sw, 2u * 8u * 6u);
  EXPECT_EQ(m.routed_hw, 0u);
  EXPECT_EQ(m.descriptors, 2u * 8u * 6u);
  OpId load = find_named(g, "L0.c0.e3.up.load_J"), gen = find_named(g, "L0.c0.e3.up.load_J.dge");
  ASSERT_NE(gen, kNoOp);
  EXPECT_EQ(g.op(gen).engine, Engine::gpsimd);
  EXPECT_EQ(preds(g, load), std::vector<OpId>{gen});
}

// The names of core 0's layer-0 GpSimd ops in queue order, "L0.c0." cut off.
std::vector<std::string> gpsimd_order(const ScheduleGraph& g) {
  std::vector<std::string> out;
  OpId any = find_named(g, "L0.c0.g0.gate.gather");
  if (any == kNoOp) any = find_named(g, "L0.c0.e0.gate.gather");
  for (OpId v : g.queues()[g.queue_of(any)].ops)
    if (g.name(v).rfind("L0.c0.", 0) == 0) out.push_back(g.name(v).substr(6));
  return out;
}

std::size_t position(const std::vector<std::string>& order, const std::string& name) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), name) - order.begin());
}

TEST(DgeStructure, SoftwareDgeDescriptorsInterleaveWithTheGathersOneGroupAhead) {
  // Qwen3 (top-8): the batched gathers take ceil(8 / 2) = 4 experts per call, 2 groups. The loop's program order
  // prefetches one group: group 0's and group 1's J/C descriptors (2 groups x 4 experts x 2 projections x J and C
  // = 32), then group 0's gathers, group 0's W_down descriptors (4 experts x 2 tiles), group 1's gathers (the last
  // group prefetches nothing), group 1's W_down — not all 48 of the core's descriptor ops ahead of the first
  // gather.
  DataflowOptions o;
  o.routed_swdge = true;
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", o);
  std::vector<std::string> order = gpsimd_order(b.decode.graph);
  std::size_t g0 = position(order, "g0.gate.gather"), g1 = position(order, "g1.gate.gather");
  ASSERT_LT(g1, order.size());
  EXPECT_EQ(g0, 32u);
  EXPECT_EQ(order[g0 - 1], "e7.up.load_C.dge");
  EXPECT_EQ(order[g0 + 1], "g0.up.gather");
  EXPECT_EQ(order[g0 + 2], "e0.load_down[0].dge");
  EXPECT_EQ(order[g0 + 9], "e3.load_down[1].dge");
  // Between two groups' gathers: this group's up gather and its 8 W_down descriptor ops.
  EXPECT_EQ(g1 - g0, 2u + 8u);
  EXPECT_EQ(order[g1 + 2], "e4.load_down[0].dge");
  EXPECT_EQ(order.size(), 32u + 4u + 16u);

  // One gather per expert: one expert ahead (e0's and e1's J/C, then e0's gathers and W_down, e2's J/C, ...).
  o.batch_gathers = false;
  Built single = build_on("trn3", "qwen3-30b-a3b", "cardan", o);
  order = gpsimd_order(single.decode.graph);
  std::size_t e0 = position(order, "e0.gate.gather");
  EXPECT_EQ(e0, 8u);
  EXPECT_EQ(order[e0 + 2], "e0.load_down[0].dge");
  EXPECT_EQ(order[e0 + 4], "e2.gate.load_J.dge");
  EXPECT_EQ(position(order, "e1.gate.gather") - e0, 2u + 2u + 4u);
}

TEST(DgeStructure, EveryRoutedLoadIsIssuedRightAfterRoutingWhenWDownHasTheHardwareDge) {
  // The routed loads all go out once the addresses are known: the last expert's J/C and W_down are in the graph
  // (program order) before the first gather. By default GpSimd's queue holds the private loads' descriptor ops
  // first (8 experts x gate and up x J and C = 32 on core 0), then the gathers (2 groups x gate and up).
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", {});
  const ScheduleGraph& g = b.decode.graph;
  OpId first_gather = find_named(g, "L0.c0.g0.gate.gather");
  ASSERT_NE(first_gather, kNoOp);
  EXPECT_LT(find_named(g, "L0.c0.e7.up.load_C"), first_gather);
  EXPECT_LT(find_named(g, "L0.c0.e7.load_down[1]"), first_gather);
  std::vector<std::string> order = gpsimd_order(g);
  EXPECT_EQ(order.size(), 32u + 4u);
  EXPECT_EQ(order.front(), "e0.gate.load_J.dge");
  EXPECT_EQ(order[31], "e7.up.load_C.dge");
  EXPECT_EQ(order[32], "g0.gate.gather");
  // With every private load on the hardware DGE GpSimd's queue holds only the gathers.
  DataflowOptions o;
  o.private_hwdge = true;
  Built hw = build_on("trn3", "qwen3-30b-a3b", "cardan", o);
  order = gpsimd_order(hw.decode.graph);
  EXPECT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), "g0.gate.gather");
}

TEST(DgeStructure, Trn1WithoutHardwareDgeGeneratesRoutedDescriptorsOnGpSimd) {
  Built b = build_on("trn1", "olmoe-1b-7b", "dense", {});
  ASSERT_EQ(b.hw.dma.hwdge_instances, 0u);
  Modes m = modes(b.decode.graph);
  EXPECT_GT(m.routed_sw, 0u);
  EXPECT_EQ(m.routed_hw, 0u);
  EXPECT_EQ(m.descriptors, m.routed_sw);
  EXPECT_EQ(m.dynamic_other, 0u);
}

}  // namespace
}  // namespace stasim::test
