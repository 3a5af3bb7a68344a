// Sharding of the routed experts over the two physical cores of a rank, as nki-library's selective-expert
// kernel does it: one token -> the cores split H, load H-contiguous tiles of the per-rank [E, H, 2, I] layout
// and exchange partial gate/up sums; several tokens -> the cores split the tokens (unless H·I >= 3072·1536).
// Dense and the hybrid alike; the hybrid's partial z exchanged on T partitions.
#include <algorithm>
#include <functional>

#include "decode_fixture.hpp"
#include "sim/core/dma_descriptors.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

DataflowOptions one_layer() {
  DataflowOptions o;
  o.layers = 1;
  return o;
}

// Each expert's partial gate/up rows in their own sendrecvs (what a gather group's experts share by default
// when the gathers are batched): the exchange structure the tests below look at per expert.
DataflowOptions per_expert_exchanges() {
  DataflowOptions o = one_layer();
  o.group_exchange = false;
  return o;
}

Built build_at(const std::string& model, const std::string& dataflow, std::int64_t batch, DataflowOptions o = one_layer()) {
  DataflowRegistry registry;
  register_builtin(registry);
  Built b{shipped_model(model), shipped_hw(), {}, o, {}};
  const Dataflow& df = registry.find(dataflow);
  b.rep = df.representation(8, 384, 256);
  Deployment dep = b.model.deployment;
  dep.batch = batch;
  b.decode = build_decode_step(b.model, dep, b.rep, b.hw, b.options, df.routed);
  return b;
}

// Qwen3's cardan step at (8, 384) on the shipped hardware as `set_hw` changes it.
Built cardan_on(DataflowOptions o, const std::function<void(HardwareConfig&)>& set_hw) {
  DataflowRegistry registry;
  register_builtin(registry);
  Built b{shipped_model("qwen3-30b-a3b"), shipped_hw(), {}, o, {}};
  set_hw(b.hw);
  const Dataflow& df = registry.find("cardan");
  b.rep = df.representation(8, 384, 256);
  b.decode = build_decode_step(b.model, b.model.deployment, b.rep, b.hw, b.options, df.routed);
  return b;
}

// The same with the cross-core exchanges carried by `engine` (core.dma.exchange_engine).
Built cardan_with_exchanges_on(DmaConfig::ExchangeEngine engine, DataflowOptions o) {
  return cardan_on(o, [engine](HardwareConfig& hw) { hw.dma.exchange_engine = engine; });
}

const Op& op_named(const ScheduleGraph& g, const std::string& name) {
  OpId v = find_named(g, name);
  EXPECT_NE(v, kNoOp) << name;
  return g.op(v == kNoOp ? 0 : v);
}

TEST(ShardingStructure, TheKernelsRuleForSplittingTokensOrH) {
  ShardingInputs in;
  in.cores = 2;
  in.hidden = 2048;
  in.intermediate_rank = 192;
  EXPECT_EQ(choose_shard(1, in), ShardOn::hidden);  // one token: nothing to split but H
  EXPECT_EQ(choose_shard(2, in), ShardOn::tokens);
  // Mixtral per rank: 4096 x 3584 = 14680064 >= 3072 x 1536 = 4718592: H even with several tokens.
  in.hidden = 4096;
  in.intermediate_rank = 3584;
  EXPECT_EQ(choose_shard(16, in), ShardOn::hidden);
  in.hidden = 3072;
  in.intermediate_rank = 1535;  // 4715520, just below the limit
  EXPECT_EQ(choose_shard(16, in), ShardOn::tokens);
  in.all_experts = true;
  EXPECT_EQ(choose_shard(16, in), ShardOn::hidden);
}

TEST(ShardingStructure, OddBatchesGiveCoreZeroTheSmallerHalf) {
  RoutingGeneratorConfig g;
  g.tokens = 5;
  g.top_k = 2;
  g.experts = 8;
  ShardingInputs in;
  in.cores = 2;
  in.hidden = 2048;
  in.intermediate_rank = 192;
  ExpertGroups ex = group_experts(generate_routing(g), in);
  ASSERT_EQ(ex.cores.size(), 2u);
  EXPECT_EQ(ex.cores[0].tokens, 2u);  // 5 / 2
  EXPECT_EQ(ex.cores[1].first_token, 2u);
  EXPECT_EQ(ex.cores[1].tokens, 3u);
  EXPECT_EQ(ex.cores[0].routes.size(), 4u);  // 2 tokens x k = 2
  EXPECT_EQ(ex.cores[1].routes.size(), 6u);
}

TEST(ShardingStructure, DenseAtOneTokenSplitsHAndExchangesPartialSums) {
  Built b = build_at("qwen3-30b-a3b", "dense", 1);
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_EQ(b.decode.experts.shard, ShardOn::hidden);
  // Each core: its 1024 rows of H as [1024, 2, 192] BF16 = 786432 B, 8 rows per partition, gate and up read
  // apart in runs of 192 x 2 B = 384 B: 8 x 2 = 16 runs per partition, 128 x 16 = 2048 descriptors.
  for (const char* core : {"L0.c0.", "L0.c1."}) {
    const Op& gu = op_named(g, std::string(core) + "e0.load_gate_up[0]");
    EXPECT_EQ(gu.bytes, 786432u);
    EXPECT_EQ(gu.partitions, 128u);
    EXPECT_EQ(gu.contiguous_bytes, 384u);
    EXPECT_EQ(descriptor_count(gu), 2048u);
    // Down: [128 rows of I, 1024 of H] in runs of this core's 1024 columns (2048 B) of [E, I, H].
    const Op& down = op_named(g, std::string(core) + "e0.load_down[0]");
    EXPECT_EQ(down.bytes, 128u * 1024u * 2u);
    EXPECT_EQ(down.contiguous_bytes, 2048u);
  }
  // The partial gate sum [128 of I, 2 tiles x 1] FP32 (192 x 4 B) goes to the other core, which adds it.
  OpId send = find_named(g, "L0.c0.e0.gate.to_core1[0]");
  ASSERT_NE(send, kNoOp);
  EXPECT_EQ(g.op(send).bytes, 768u);
  EXPECT_EQ(g.op(send).dst, Location::peer);
  OpId sum = find_named(g, "L0.c1.e0.gate.partial_sum[0]");
  ASSERT_NE(sum, kNoOp);
  EXPECT_TRUE(waits_for(g, sum, send));
  // φ on core 1 waits for both cores' gate work.
  OpId phi = find_named(g, "L0.c1.e0.phi[0]");
  EXPECT_TRUE(waits_for(g, phi, find_named(g, "L0.c0.e0.gate.mm[15]")));
  // Each core computes the down projection for its half of H: 8 H tiles x 2 I tiles.
  EXPECT_EQ(count_ops(g, ".down[", "L0.c1.e0."), 16u);
}

// --fused-gate-up-loads: one view of [E, H, 2, I], so a partition's 8 rows of gate and up (8 x 2 x 192 x 2 B =
// 6144 B) are one run: 128 descriptors per expert and core instead of 2048, the same bytes.
TEST(ShardingStructure, FusedGateUpLoadsReadEachPartitionInOneRun) {
  DataflowOptions o = one_layer();
  o.fused_gate_up_loads = true;
  Built b = build_at("qwen3-30b-a3b", "dense", 1, o);
  const Op& gu = op_named(b.decode.graph, "L0.c0.e0.load_gate_up[0]");
  EXPECT_EQ(gu.bytes, 786432u);
  EXPECT_EQ(gu.contiguous_bytes, 0u);
  EXPECT_EQ(descriptor_count(gu), 128u);
  // The hybrid has no dense gate/up weights: the switch leaves its graph as it is (same ops).
  Built apart = build_at("qwen3-30b-a3b", "cardan", 1);
  Built fused = build_at("qwen3-30b-a3b", "cardan", 1, o);
  EXPECT_EQ(fused.decode.graph.size(), apart.decode.graph.size());
}

TEST(ShardingStructure, DenseWithSeveralTokensSplitsThemAndExchangesNothing) {
  Built b = build_at("qwen3-30b-a3b", "dense", 4);
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_EQ(b.decode.experts.shard, ShardOn::tokens);
  // Core 0 runs tokens 0 and 1: 2 x 8 routes over the whole H, [2048, 2, 192] each.
  EXPECT_EQ(count_ops(g, ".load_gate_up[", "L0.c0.e"), 16u);
  EXPECT_EQ(op_named(g, "L0.c0.e15.load_gate_up[0]").bytes, 2048u * 2u * 192u * 2u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.load_down[0]").contiguous_bytes, 0u);
  EXPECT_EQ(count_ops(g, ".to_core", "L0.c0.e"), 0u);
  EXPECT_EQ(count_ops(g, ".partial_sum", "L0.c1.e"), 0u);
}

// --split-top-k, nki-library's MX selective kernel's shard_on_K: every token on every core, core c taking the
// k-th experts c·k/2 .. (c+1)·k/2 − 1 of each token, whatever the batch; never in all-experts mode.
TEST(ShardingStructure, TheTopKSplitGivesEachCoreItsHalfOfEveryTokensExperts) {
  RoutingGeneratorConfig g;
  g.tokens = 3;
  g.top_k = 4;
  g.experts = 16;
  RoutingTrace trace = generate_routing(g);
  ShardingInputs in;
  in.cores = 2;
  in.hidden = 2048;
  in.intermediate_rank = 192;
  in.split_top_k = true;
  EXPECT_EQ(choose_shard(1, in), ShardOn::top_k);
  EXPECT_EQ(choose_shard(16, in), ShardOn::top_k);
  ExpertGroups ex = group_experts(trace, in);
  ASSERT_EQ(ex.cores.size(), 2u);
  for (std::uint32_t c = 0; c < 2; ++c) {
    const CoreExperts& ce = ex.cores[c];
    EXPECT_EQ(ce.first_token, 0u);
    EXPECT_EQ(ce.tokens, 3u);
    ASSERT_EQ(ce.routes.size(), 6u);  // 3 tokens x 4 / 2 experts each
    for (std::size_t i = 0; i < ce.routes.size(); ++i) {
      // Route i: token i / 2, its k-th expert with k = 2c + i % 2.
      EXPECT_EQ(ce.routes[i].token, i / 2);
      EXPECT_EQ(ce.groups[ce.routes[i].group].expert, trace.expert_of(std::int64_t(i / 2) * 4 + 2 * c + i % 2));
    }
  }
  in.all_experts = true;
  EXPECT_EQ(choose_shard(1, in), ShardOn::hidden);
  in.all_experts = false;
  g.top_k = 3;
  EXPECT_THROW(group_experts(generate_routing(g), in), InputError);
}

// Dense Qwen3 at one token with the top-k split: core 0 runs the first four experts over all of H ([2048, 2,
// 192] BF16 = 1572864 B each, where the H split loads 786432 B of all eight), no partial row crosses, the same
// HBM bytes, and the cores' outputs meet once.
TEST(ShardingStructure, DenseWithTheTopKSplitRunsWholeExpertsAndSumsOnce) {
  DataflowOptions o = one_layer();
  o.split_top_k = true;
  Built split = build_at("qwen3-30b-a3b", "dense", 1, o);
  Built apart = build_at("qwen3-30b-a3b", "dense", 1);
  const ScheduleGraph& g = split.decode.graph;
  EXPECT_EQ(split.decode.experts.shard, ShardOn::top_k);
  for (const char* core : {"L0.c0.e", "L0.c1.e"}) {
    EXPECT_EQ(count_ops(g, ".load_gate_up[", core), 4u) << core;
    EXPECT_EQ(op_named(g, std::string(core) + "3.load_gate_up[0]").bytes, 2048u * 2u * 192u * 2u);
    EXPECT_EQ(count_ops(g, ".to_core", core), 0u) << core;
    EXPECT_EQ(count_ops(g, ".partial_sum", core), 0u) << core;
    // The down projection over all of H: 16 H tiles x 2 I tiles per expert.
    EXPECT_EQ(count_ops(g, ".down[", std::string(core) + "0."), 32u) << core;
  }
  EXPECT_EQ(count_ops(g, "moe.to_core0", "L0.c1."), 1u);
  auto hbm_bytes = [](const ScheduleGraph& graph) {
    std::uint64_t sum = 0;
    for (OpId v = 0; v < graph.size(); ++v)
      if (graph.op(v).engine == Engine::dma && graph.op(v).src == Location::hbm) sum += graph.op(v).bytes;
    return sum;
  };
  EXPECT_EQ(hbm_bytes(g), hbm_bytes(apart.decode.graph));
}

// The hybrid with the top-k split: each core keeps all of r (whole D, z over all of H) and its four experts' J
// and C; nothing of an expert crosses.
TEST(ShardingStructure, HybridWithTheTopKSplitKeepsWholeZAndItsExperts) {
  DataflowOptions o = one_layer();
  o.split_top_k = true;
  Built b = build_at("qwen3-30b-a3b", "cardan", 1, o);
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_EQ(op_named(g, "L0.c1.gate.load_D").bytes, 2048u * 384u * 2u);
  // Four experts' J loads, each with its software-DGE descriptors op: e0..e3, no e4.
  EXPECT_EQ(count_ops(g, ".gate.load_J.dge", "L0.c1.e"), 4u);
  EXPECT_EQ(find_named(g, "L0.c1.e4.gate.load_J"), kNoOp);
  EXPECT_EQ(op_named(g, "L0.c1.e3.gate.load_J").bytes, 256u * 192u);
  EXPECT_EQ(count_ops(g, ".to_core", "L0.c0.e"), 0u);
  EXPECT_EQ(count_ops(g, "z_to_core", "L0."), 0u);
}

TEST(ShardingStructure, MixtralKeepsHSplitWithSeveralTokens) {
  Built b = build_at("mixtral-8x7b", "dense", 4);
  EXPECT_EQ(b.decode.experts.shard, ShardOn::hidden);
  // Every core runs every route (4 tokens x top-2) on its half of H.
  EXPECT_EQ(b.decode.experts.cores[0].routes.size(), 8u);
  EXPECT_GT(count_ops(b.decode.graph, ".gate.to_core1[", "L0.c0.e7."), 0u);
}

// The DMA queue of every cross-core transfer core 0 issues in layer 0, in issue order (op ids grow with it).
std::vector<std::uint16_t> exchange_queues_of_core0(const ScheduleGraph& g) {
  std::vector<std::uint16_t> out;
  for (OpId v = 0; v < g.size(); ++v)
    if (g.op(v).engine == Engine::dma && g.op(v).dst == Location::peer && g.name(v).rfind("L0.c0.", 0) == 0)
      out.push_back(g.op(v).queue);
  return out;
}

TEST(ShardingStructure, ExchangesRotateOverTheCoresLastQueuesOrTakeAnyWithNoneReserved) {
  // Qwen3 cardan at one token, core 0, layer 0: the router's score exchange, then gate and up partial rows for 8
  // experts (16), then the block's partial output to core 0 is core 1's: 17 transfers.
  auto queues_with = [](std::uint32_t n) {
    Built b = cardan_on(per_expert_exchanges(), [n](HardwareConfig& hw) { hw.dma.exchange_queues = n; });
    return exchange_queues_of_core0(b.decode.graph);
  };
  std::vector<std::uint16_t> one = queues_with(1);
  ASSERT_EQ(one.size(), 17u);
  for (std::uint16_t q : one) EXPECT_EQ(q, 15u);  // trn3's 16 queues: the last one, one pipe
  std::vector<std::uint16_t> two = queues_with(2);
  ASSERT_EQ(two.size(), 17u);
  for (std::size_t i = 0; i < two.size(); ++i) EXPECT_EQ(two[i], i % 2 == 0 ? 14u : 15u) << i;  // 14, 15, 14, ...
  // None reserved: the exchanges take the next queue in turn like the loads, so they spread over many queues.
  std::vector<std::uint16_t> none = queues_with(0);
  ASSERT_EQ(none.size(), 17u);
  std::sort(none.begin(), none.end());
  EXPECT_GT(std::unique(none.begin(), none.end()) - none.begin(), 4);
}

// Position of op `name` among core 0's GpSimd ops in program order (op ids grow with issue order).
std::size_t gpsimd_position(const ScheduleGraph& g, const std::string& name) {
  std::size_t at = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).engine != Engine::gpsimd || g.op(v).core != 0) continue;
    if (g.name(v) == name) return at;
    ++at;
  }
  ADD_FAILURE() << name << " is not a GpSimd op of core 0";
  return 0;
}

TEST(ShardingStructure, ExchangesOnGpSimdsDmaRunInGpSimdsStreamOneExpertBehindTheGathers) {
  DataflowOptions o = one_layer();
  o.batch_gathers = false;  // one gather per expert and projection: e<N>.gate.gather, e<N>.up.gather
  Built on_dma = cardan_with_exchanges_on(DmaConfig::ExchangeEngine::dma, o);
  Built on_gpsimd = cardan_with_exchanges_on(DmaConfig::ExchangeEngine::gpsimd_dma, o);
  // The same 17 exchanges of core 0 in layer 0 (router scores, 8 experts x gate and up), none on a DMA queue.
  EXPECT_EQ(exchange_queues_of_core0(on_dma.decode.graph).size(), 17u);
  EXPECT_TRUE(exchange_queues_of_core0(on_gpsimd.decode.graph).empty());
  const ScheduleGraph& g = on_gpsimd.decode.graph;
  EXPECT_EQ(count_ops(g, ".to_core1", "L0.c0."), 16u);
  EXPECT_EQ(op_named(g, "L0.c0.router.exchange").kind, OpKind::sendrecv);
  const Op& rows = op_named(g, "L0.c0.e3.up.to_core1");
  EXPECT_EQ(rows.engine, Engine::gpsimd);
  EXPECT_EQ(rows.kind, OpKind::sendrecv);
  EXPECT_EQ(rows.bytes, 768u);  // [1, 192] FP32, as on the shared DMA
  EXPECT_EQ(rows.dst, Location::peer);
  EXPECT_EQ(rows.peer_core, 1);
  // Program order on GpSimd: expert 0's exchanges after expert 1's gathers and before expert 2's (one behind),
  // so GpSimd never stalls its next gathers on this expert's reduction. On the shared DMA the sends go right
  // after their expert's gate/up, before the next expert's gathers.
  EXPECT_GT(gpsimd_position(g, "L0.c0.e0.gate.to_core1"), gpsimd_position(g, "L0.c0.e1.up.gather"));
  EXPECT_LT(gpsimd_position(g, "L0.c0.e0.up.to_core1"), gpsimd_position(g, "L0.c0.e2.gate.gather"));
  EXPECT_LT(find_named(on_dma.decode.graph, "L0.c0.e0.gate.to_core1"), find_named(on_dma.decode.graph, "L0.c0.e1.gate.gather"));
}

// A sendrecv on the shared DMA queues (nki.isa.dma_engine.dma, "shared DMA with CoreBarrier synchronization")
// starts once both cores have reached it: core 0's send depends directly on core 1's side of the same exchange
// (its partial rows, its router scores) as well as on its own. On GpSimd's DMA, which documents no barrier, only
// on its own side.
TEST(ShardingStructure, ASendrecvOnTheSharedDmaWaitsForBothCoresSides) {
  auto from_core = [](const ScheduleGraph& g, OpId op, const std::string& core) {
    std::size_t n = 0;
    for (OpId p : preds(g, op))
      if (g.name(p).rfind(core, 0) == 0) ++n;
    return n;
  };
  DataflowOptions grouped = one_layer();  // batched gathers: a gather group's rows in one sendrecv
  const struct {
    const char* dataflow;
    DataflowOptions options;
    const char* send;
  } cases[] = {{"dense", per_expert_exchanges(), "L0.c0.e0.gate.to_core1[0]"},
               {"cardan", per_expert_exchanges(), "L0.c0.e0.gate.to_core1"},
               {"cardan", grouped, "L0.c0.g0.gate_up.to_core1"},
               {"cardan", per_expert_exchanges(), "L0.c0.router.exchange"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.dataflow) + " " + c.send);
    Built b = build_at("qwen3-30b-a3b", c.dataflow, 1, c.options);
    const ScheduleGraph& g = b.decode.graph;
    OpId send = find_named(g, c.send);
    ASSERT_NE(send, kNoOp);
    EXPECT_EQ(g.op(send).engine, Engine::dma);
    EXPECT_GE(from_core(g, send, "L0.c0."), 1u);
    EXPECT_GE(from_core(g, send, "L0.c1."), 1u);
  }
  Built gp = cardan_with_exchanges_on(DmaConfig::ExchangeEngine::gpsimd_dma, per_expert_exchanges());
  OpId send = find_named(gp.decode.graph, "L0.c0.e0.gate.to_core1");
  ASSERT_NE(send, kNoOp);
  EXPECT_EQ(from_core(gp.decode.graph, send, "L0.c1."), 0u);
}

// --fused-gate-up-exchange: with H split, an expert's partial gate and up rows cross in one sendrecv of both
// (nki-library's use_fused_gate_up_sendrecv) instead of one per projection, and both partial sums wait for it.
TEST(ShardingStructure, AFusedGateUpExchangeSendsBothPartialsOfAnExpertAtOnce) {
  // (With batched gathers a gather group's rows already cross together; per expert here.)
  DataflowOptions fused = per_expert_exchanges();
  fused.fused_gate_up_exchange = true;
  for (const char* dataflow : {"cardan", "dense"}) {
    SCOPED_TRACE(dataflow);
    Built apart = build_at("qwen3-30b-a3b", dataflow, 1, per_expert_exchanges()),
          together = build_at("qwen3-30b-a3b", dataflow, 1, fused);
    const ScheduleGraph& a = apart.decode.graph;
    const ScheduleGraph& g = together.decode.graph;
    // Core 0, layer 0: 8 experts x (gate, up) = 16 sends apart, 8 fused; the router's exchange stays.
    EXPECT_EQ(count_ops(a, ".to_core1", "L0.c0.e"), 16u);
    EXPECT_EQ(count_ops(g, ".to_core1", "L0.c0.e"), 8u);
    EXPECT_EQ(count_ops(g, ".gate_up.to_core1", "L0.c0.e"), 8u);
    EXPECT_EQ(count_ops(g, "router.exchange", "L0.c0."), count_ops(a, "router.exchange", "L0.c0."));
    // Twice the bytes of one projection's partial: [1, 2 x 192] FP32 = 1536 B (768 each apart).
    const std::string suffix = std::string(dataflow) == "dense" ? "[0]" : "";
    const std::string one = std::string("L0.c0.e3.gate_up.to_core1") + suffix;
    EXPECT_EQ(op_named(a, "L0.c0.e3.gate.to_core1" + suffix).bytes, 768u);
    EXPECT_EQ(op_named(g, one).bytes, 2u * 768u);
    // Core 1 adds both partials after that one transfer.
    const OpId send = find_named(g, one);
    for (const char* p : {"gate", "up"}) {
      std::vector<OpId> before = preds(g, find_named(g, "L0.c1.e3." + std::string(p) + ".partial_sum" + suffix));
      EXPECT_NE(std::find(before.begin(), before.end(), send), before.end()) << p;
    }
  }
}

// With batched gathers the experts of a gather group reach their partial gate/up rows together and cross in one
// sendrecv per group. Qwen3 (top-8) selects ceil(8 / 2) = 4 experts per call: 2 groups per core and layer, 2
// exchanges instead of 8 x 2 = 16.
TEST(ShardingStructure, BatchedGathersExchangeAGroupsPartialsInOneSendrecv) {
  DataflowOptions per_expert = one_layer();
  per_expert.group_exchange = false;
  Built grouped = build_at("qwen3-30b-a3b", "cardan", 1), apart = build_at("qwen3-30b-a3b", "cardan", 1, per_expert);
  const ScheduleGraph& g = grouped.decode.graph;
  const ScheduleGraph& a = apart.decode.graph;
  EXPECT_EQ(count_ops(g, ".gate_up.to_core1", "L0.c0.g"), 2u);
  EXPECT_EQ(count_ops(g, ".to_core1", "L0.c0.e"), 0u);
  EXPECT_EQ(count_ops(a, ".to_core1", "L0.c0.e"), 16u);
  EXPECT_EQ(count_ops(a, ".to_core1", "L0.c0.g"), 0u);
  // The four experts' gate and up rows side by side: 4 experts x 1 token on the partitions, 2 x 192 FP32 each
  // = 4 x 2 x 192 x 4 = 6144 bytes, as many as the 8 per-expert sends of 768 bytes it replaces.
  const Op& send = op_named(g, "L0.c0.g0.gate_up.to_core1");
  EXPECT_EQ(send.bytes, 6144u);
  EXPECT_EQ(send.partitions, 4u);
  // It waits for its four experts' partial rows (the last C_eᵀz of each), and core 1 adds them after it.
  const OpId x = find_named(g, "L0.c0.g0.gate_up.to_core1");
  for (const char* e : {"e0", "e1", "e2", "e3"})
    for (const char* p : {"gate", "up"}) {
      SCOPED_TRACE(std::string(e) + "." + p);
      EXPECT_TRUE(waits_for(g, x, find_named(g, std::string("L0.c0.") + e + "." + p + ".lr_mm[1]")));
      std::vector<OpId> before = preds(g, find_named(g, std::string("L0.c1.") + e + "." + p + ".partial_sum"));
      EXPECT_NE(std::find(before.begin(), before.end(), x), before.end());
    }
  // The next group's experts are not in it.
  EXPECT_FALSE(waits_for(g, x, find_named(g, "L0.c0.e4.gate.lr_mm[1]")));
  // On GpSimd's DMA the group's send goes into GpSimd's stream one group behind: after the next group's gathers,
  // and the last group's after it.
  Built behind = cardan_with_exchanges_on(DmaConfig::ExchangeEngine::gpsimd_dma, one_layer());
  const ScheduleGraph& b = behind.decode.graph;
  EXPECT_EQ(op_named(b, "L0.c0.g0.gate_up.to_core1").kind, OpKind::sendrecv);
  EXPECT_GT(gpsimd_position(b, "L0.c0.g0.gate_up.to_core1"), gpsimd_position(b, "L0.c0.g1.up.gather"));
  EXPECT_LT(gpsimd_position(b, "L0.c0.g0.gate_up.to_core1"), gpsimd_position(b, "L0.c0.g1.gate_up.to_core1"));
  // Unbatched, every expert sends its own rows whatever the switch says.
  DataflowOptions unbatched = one_layer();
  unbatched.batch_gathers = false;
  EXPECT_EQ(count_ops(build_at("qwen3-30b-a3b", "cardan", 1, unbatched).decode.graph, ".to_core1", "L0.c0.e"), 16u);
}

TEST(ShardingStructure, HybridAtOneTokenSplitsHAndExchangesOnFewPartitions) {
  Built b = build_at("qwen3-30b-a3b", "cardan", 1, per_expert_exchanges());
  const ScheduleGraph& g = b.decode.graph;
  // This core's blocks of J (1024 / 8 = 128 blocks x 192); r split instead of H for the LR part: D [2048, 192]
  // (this core's half of r over all of H, the same bytes as half of H's rows) and C_e's 192 rows of r for all
  // 192 of I's columns.
  EXPECT_EQ(op_named(g, "L0.c0.gate.load_D").bytes, 2048u * 192u * 2u);
  EXPECT_EQ(op_named(g, "L0.c1.e0.gate.load_J").bytes, 128u * 192u);
  EXPECT_EQ(op_named(g, "L0.c1.e0.up.load_C").bytes, 192u * 192u * 2u);
  // z never crosses: C_eᵀz over this core's r is a partial sum carried by the gate/up exchange.
  EXPECT_EQ(count_ops(g, "z_to_core", "L0."), 0u);
  EXPECT_EQ(count_ops(g, "z_sum", "L0."), 0u);
  // z as the dense kernel's gate/up: D's [128 of H, 128 of r] tiles stationary, h moving (one column), so z lands
  // as [r, T] without a transpose: 2048 / 128 = 16 tiles of H for each of 2 tiles of this core's r (128 + 64).
  EXPECT_EQ(count_ops(g, ".z_mm[", "L0.c0.gate"), 2u * 16u);
  EXPECT_EQ(op_named(g, "L0.c0.gate.z_mm[0]").m, 128u);
  EXPECT_EQ(op_named(g, "L0.c0.gate.z_mm[0]").n, 1u);
  EXPECT_EQ(op_named(g, "L0.c0.gate.z_mm[16]").m, 64u);
  EXPECT_EQ(count_ops(g, ".z_transpose", "L0."), 0u);
  // The partial gate rows [1, 192] FP32 travel as one 768-byte run on one partition, not 128 runs of 6 bytes.
  const Op& rows = op_named(g, "L0.c0.e3.up.to_core1");
  EXPECT_EQ(rows.bytes, 768u);
  EXPECT_EQ(rows.partitions, 1u);
  // C_eᵀz covers all 192 columns over 2 r tiles (128 + 64 of this core's 192); the VQ reduction all 192 over
  // this core's 128 blocks.
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.lr_mm[0]").n, 192u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.lr_mm[1]").k, 64u);
  EXPECT_EQ(count_ops(g, ".gate.lr_mm[", "L0.c0.e0."), 2u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.vq_sum[0]").n, 192u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.vq_sum[0]").k, 128u);
  // The partial rows carry the LR part: the exchange waits for the last C_eᵀz matmul.
  EXPECT_TRUE(waits_for(g, find_named(g, "L0.c0.e0.gate.to_core1"), find_named(g, "L0.c0.e0.gate.lr_mm[1]")));
}

TEST(ShardingStructure, HybridWithSeveralTokensSplitsThemAndNeedsNoExchange) {
  Built b = build_at("qwen3-30b-a3b", "cardan", 4);
  const ScheduleGraph& g = b.decode.graph;
  // Whole D, J and C on each core; no partial z or gate/up rows cross the link.
  EXPECT_EQ(op_named(g, "L0.c0.gate.load_D").bytes, 2048u * 384u * 2u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.load_J").bytes, 256u * 192u);
  EXPECT_EQ(op_named(g, "L0.c0.e0.gate.load_C").bytes, 384u * 192u * 2u);
  EXPECT_EQ(count_ops(g, "z_to_core", "L0."), 0u);
  EXPECT_EQ(count_ops(g, ".to_core", "L0.c0.e"), 0u);
}

TEST(ShardingStructure, HybridZSpreadsOverPsumBanksWhenItsTilesAndTokensOutgrowOne) {
  // One core per rank (LNC 1) takes all 64 tokens; r = 2048 is 16 tiles of 128. A PSUM bank holds 512 FP32
  // columns, so 512 / 64 = 8 r tiles share a bank: z takes 2 banks, each drained once, and one op joins them.
  DataflowRegistry registry;
  register_builtin(registry);
  Built b{shipped_model("qwen3-30b-a3b"), shipped_hw(), {}, one_layer(), {}};
  const Dataflow& df = registry.find("cardan");
  b.rep = df.representation(8, 2048, 256);
  b.hw.lnc = 1;  // the cores of a rank come from the hardware (`--lnc` sets both)
  Deployment dep = b.model.deployment;
  dep.lnc = 1;
  dep.batch = 64;
  b.decode = build_decode_step(b.model, dep, b.rep, b.hw, b.options, df.routed);
  const ScheduleGraph& g = b.decode.graph;
  EXPECT_NO_THROW(validate_graph(g, b.hw));
  // 16 r tiles x 2048 / 128 = 16 H tiles per projection.
  EXPECT_EQ(count_ops(g, ".z_mm[", "L0.c0.gate"), 16u * 16u);
  EXPECT_EQ(count_ops(g, ".z_drain[", "L0.c0.gate"), 2u);
  EXPECT_EQ(op_named(g, "L0.c0.gate.z_drain[0]").free, 8u * 64u);
  EXPECT_EQ(count_ops(g, ".z_ready", "L0.c0.gate"), 1u);
  // At Qwen3's deployment (LNC 2, one token, this core's 192 of r = 384 in 2 tiles) one bank and no join.
  Built one = build_at("qwen3-30b-a3b", "cardan", 1);
  EXPECT_EQ(count_ops(one.decode.graph, ".z_drain[", "L0.c0.gate"), 1u);
  EXPECT_EQ(op_named(one.decode.graph, "L0.c0.gate.z_drain[0]").free, 2u);
  EXPECT_EQ(count_ops(one.decode.graph, ".z_ready", "L0.c0.gate"), 0u);
}

}  // namespace
}  // namespace stasim::test
