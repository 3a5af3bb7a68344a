// Who writes each DMA's descriptors: the routed experts' loads (addresses from the router's indices in SBUF)
// use the hardware DGE where the core has one (trn2/trn3) and GpSimd's software DGE otherwise (trn1) or when
// asked (--routed-swdge); every static load (attention, router, B/D, KV cache) keeps host-written descriptors.
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

TEST(DgeStructure, RoutedLoadsUseTheHardwareDgeAndStaticLoadsHostDescriptors) {
  Built b = build_on("trn3", "qwen3-30b-a3b", "cardan", {});
  const ScheduleGraph& g = b.decode.graph;
  Modes m = modes(g);
  // Per core, 8 experts: J and C of gate and up (4) and 192 / 128 -> 2 down tiles = 6 routed loads; 2 cores.
  EXPECT_EQ(m.routed_hw, 2u * 8u * 6u);
  EXPECT_EQ(m.routed_sw, 0u);
  EXPECT_EQ(m.routed_static, 0u);
  EXPECT_EQ(m.dynamic_other, 0u);  // attention, KV cache, router, B and D: host descriptors
  EXPECT_GT(m.static_other, 0u);
  EXPECT_EQ(m.descriptors, 0u);  // no GpSimd descriptor work
  EXPECT_EQ(g.op(find_named(g, "L0.c0.gate.load_D")).dge, DgeMode::static_);
  EXPECT_EQ(g.op(find_named(g, "L0.c0.e3.up.load_J")).dge, DgeMode::hwdge);
}

TEST(DgeStructure, DenseExpertWeightsAreDynamicToo) {
  Built b = build_on("trn3", "qwen3-30b-a3b", "dense", {});
  Modes m = modes(b.decode.graph);
  // Per core and expert: one fused gate/up load over the core's half of H and 2 down tiles; 8 experts, 2 cores.
  EXPECT_EQ(m.routed_hw, 2u * 8u * 3u);
  EXPECT_EQ(m.routed_static + m.routed_sw + m.dynamic_other, 0u);
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
