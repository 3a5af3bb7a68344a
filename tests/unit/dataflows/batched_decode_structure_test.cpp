// Batched decode as a graph (nki-library selective_expert_impl.py): the cores split the tokens, each core loops
// over its (token, expert) routes, every route loading its expert (dense, and the hybrid by default); with
// --group-routes the hybrid shares an expert's J_e, C_e and W_down between the core's tokens routed to it;
// all-experts mode only when asked; routing errors.
#include "decode_fixture.hpp"
#include "sim/core/dma_descriptors.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

// OLMoE (E = 64, k = 8): four tokens whose choices overlap. Tokens 0 and 1 (core 0) share experts 4..7;
// tokens 2 and 3 (core 1) share none.
std::shared_ptr<const RoutingTrace> overlapping_routes() {
  std::vector<std::vector<std::int64_t>> ids = {{0, 1, 2, 3, 4, 5, 6, 7},
                                                {4, 5, 6, 7, 8, 9, 10, 11},
                                                {0, 1, 2, 3, 20, 21, 22, 23},
                                                {8, 9, 10, 11, 12, 13, 14, 15}};
  return std::make_shared<RoutingTrace>(routing_from_rows(ids, {}, 64, "test"));
}

Built build_batch(const std::string& dataflow, std::int64_t batch, DataflowOptions o) {
  DataflowRegistry registry;
  register_builtin(registry);
  Built b{shipped_model("olmoe-1b-7b"), shipped_hw(), {}, o, {}};
  const Dataflow& df = registry.find(dataflow);
  b.rep = df.representation(8, 384, 256);
  Deployment dep = b.model.deployment;
  dep.batch = batch;
  b.decode = build_decode_step(b.model, dep, b.rep, b.hw, b.options, df.routed);
  return b;
}

DataflowOptions one_layer(bool with_routes = true) {
  DataflowOptions o;
  o.layers = 1;
  if (with_routes) o.routes = overlapping_routes();
  return o;
}

const Op* find_op(const ScheduleGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v)
    if (g.name(v) == name) return &g.op(v);
  return nullptr;
}

TEST(BatchedDecodeStructure, TheCoresSplitTheTokensAndGroupTheirExperts) {
  Built b = build_batch("dense", 4, one_layer());
  const ExpertGroups& ex = b.decode.experts;
  EXPECT_FALSE(ex.all_experts);
  EXPECT_EQ(ex.shard, ShardOn::tokens);
  ASSERT_EQ(ex.cores.size(), 2u);
  // Core 0: tokens 0, 1 -> 16 routes over 12 distinct experts (4..7 twice); core 1: tokens 2, 3 -> 16 over 16.
  EXPECT_EQ(ex.cores[0].first_token, 0u);
  EXPECT_EQ(ex.cores[0].tokens, 2u);
  EXPECT_EQ(ex.cores[0].routes.size(), 16u);
  EXPECT_EQ(ex.cores[0].groups.size(), 12u);
  EXPECT_EQ(ex.cores[0].groups[4].expert, 4);
  EXPECT_EQ(ex.cores[0].groups[4].tokens, 2u);
  EXPECT_EQ(ex.cores[1].first_token, 2u);
  EXPECT_EQ(ex.cores[1].groups.size(), 16u);
  // The step's distinct experts: 0..15 and 20..23.
  EXPECT_EQ(ex.size(), 20u);
}

TEST(BatchedDecodeStructure, DenseLoadsEveryRouteItsOwnExpertWeights) {
  Built b = build_batch("dense", 4, one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // One fused gate/up load and ceil(I_rank / 128) = 2 down loads per (token, expert) route, each core its 16
  // routes over the whole H (OLMoE: H 2048, I_rank 1024 / 4 = 256): 16 x 3 = 48 loads per core.
  EXPECT_EQ(count_ops(g, ".load_gate_up[", "L0.c0.e"), 16u);
  EXPECT_EQ(count_ops(g, ".load_down[", "L0.c0.e"), 32u);
  EXPECT_EQ(count_ops(g, ".load_gate_up[", "L0.c1.e"), 16u);
  const Op* gu = find_op(g, "L0.c0.e0.load_gate_up[0]");
  ASSERT_NE(gu, nullptr);
  EXPECT_EQ(gu->bytes, 2048u * 2u * 256u * 2u);  // [H, 2, I] BF16
  // Gate and up read apart: runs of one projection's 256 columns = 512 B; 2048 rows / 128 = 16 rows per
  // partition x 2 projections = 32 runs per partition, 128 x 32 = 4096 descriptors.
  EXPECT_EQ(gu->contiguous_bytes, 256u * 2u);
  EXPECT_EQ(descriptor_count(*gu), 4096u);
  const Op* down = find_op(g, "L0.c0.e0.load_down[0]");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->bytes, 128u * 2048u * 2u);
  EXPECT_EQ(down->contiguous_bytes, 0u);  // whole rows of [E, I, H]
  // One token per route: the hidden [128, 1] moves through 16 x 2 weight tiles per projection.
  const Op* gate = find_op(g, "L0.c0.e0.gate.mm[0]");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->n, 1u);
  EXPECT_EQ(gate->m, 128u);
  EXPECT_EQ(count_ops(g, ".gate.mm[", "L0.c0.e0."), 16u * 2u);
  // No partial sums to exchange when the tokens are split.
  EXPECT_EQ(count_ops(g, ".to_core", "L0.c0.e"), 0u);
}

TEST(BatchedDecodeStructure, CardanLoadsEveryRouteItsOwnExpertByDefault) {
  Built b = build_batch("cardan", 4, one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // The selective loop: J and C once per (token, expert) route, 16 on each core per projection (core 0's experts
  // 4..7 twice: routes 4..7 for token 0, routes 8..11 for token 1), each with its GpSimd descriptor op.
  EXPECT_EQ(count_ops(g, ".load_J.dge", "L0.c0."), 16u * 2u);
  EXPECT_EQ(count_ops(g, ".load_C.dge", "L0.c0."), 16u * 2u);
  EXPECT_EQ(count_ops(g, ".load_J.dge", "L0.c1."), 16u * 2u);
  EXPECT_EQ(count_ops(g, ".load_down[", "L0.c0.e"), 16u * 2u);  // ceil(I_rank 256 / 128) = 2 per route
  // Route 4 (token 0's expert 4) and route 8 (token 1's expert 4) load the same bytes, one token each.
  const Op* j4 = find_op(g, "L0.c0.e4.gate.load_J");
  const Op* j8 = find_op(g, "L0.c0.e8.gate.load_J");
  ASSERT_NE(j4, nullptr);
  ASSERT_NE(j8, nullptr);
  EXPECT_EQ(j4->bytes, j8->bytes);
  EXPECT_EQ(j4->bytes, 256u * 256u);  // J_e: H/d = 256 blocks x I_rank 256 uint8
  EXPECT_EQ(find_op(g, "L0.c0.e4.gate.vq_sum[0]")->m, 1u);
  EXPECT_EQ(find_op(g, "L0.c0.e8.down[0]")->n, 1u);
  // Calls of ceil(8 / 2) = 4 routes of one token each: 4 calls per projection, 4 x 2 x 256 = 2048 elements.
  for (const char* call : {"L0.c0.g0.gate.gather", "L0.c0.g1.gate.gather", "L0.c0.g3.gate.gather"}) {
    const Op* gather = find_op(g, call);
    ASSERT_NE(gather, nullptr) << call;
    EXPECT_EQ(gather->free, 4u * 2u * 256u) << call;
    EXPECT_EQ(gather->elements_per_index, 1u) << call;
  }
  EXPECT_EQ(find_op(g, "L0.c0.g4.gate.gather"), nullptr);
  // T still covers the core's two tokens once (each route reads its token's column).
  EXPECT_EQ(count_ops(g, ".T_mm[", "L0.c0.gate"), 2u * 2u);
}

TEST(BatchedDecodeStructure, CardanWithGroupRoutesSharesAnExpertBetweenTheTokensOfACore) {
  DataflowOptions o = one_layer();
  o.group_routes = true;
  Built b = build_batch("cardan", 4, o);
  const ScheduleGraph& g = b.decode.graph;
  // J and C once per distinct expert of the core: 12 on core 0, 16 on core 1, per projection; each load is a
  // software-DGE transfer with its GpSimd descriptor op (".load_J.dge"), so two ops per load carry the name.
  EXPECT_EQ(count_ops(g, ".load_J.dge", "L0.c0."), 12u * 2u);
  EXPECT_EQ(count_ops(g, ".load_J", "L0.c0."), 2u * 12u * 2u);
  EXPECT_EQ(count_ops(g, ".load_C.dge", "L0.c0."), 12u * 2u);
  EXPECT_EQ(count_ops(g, ".load_J.dge", "L0.c1."), 16u * 2u);
  // Expert 4 (group 4 of core 0) serves tokens 0 and 1: its matmuls carry T_e = 2, its down too.
  const Op* vq = find_op(g, "L0.c0.e4.gate.vq_sum[0]");
  ASSERT_NE(vq, nullptr);
  EXPECT_EQ(vq->m, 2u);
  const Op* down = find_op(g, "L0.c0.e4.down[0]");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->n, 2u);
  EXPECT_EQ(find_op(g, "L0.c0.e0.down[0]")->n, 1u);
  // Selections per partition: (H/d = 256 blocks = 2 per partition) x I_rank 256 x T_e, in calls of ceil(8 / 2) = 4
  // experts of one token count. Experts 0..3 serve token 0 only: one call of 4 x 512 = 2048 elements; experts
  // 4..7 serve tokens 0 and 1: the next call, 4 x 1024 = 4096 elements, two per index; experts 8..11 the third.
  const Op* gather = find_op(g, "L0.c0.g0.gate.gather");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->free, 4u * 2u * 256u);
  const Op* shared = find_op(g, "L0.c0.g1.gate.gather");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->free, 4u * 2u * 256u * 2u);
  EXPECT_EQ(shared->elements_per_index, 2u);
  EXPECT_EQ(find_op(g, "L0.c0.g2.gate.gather")->elements_per_index, 1u);
  EXPECT_EQ(find_op(g, "L0.c0.g3.gate.gather"), nullptr);
  // T covers the core's tokens only: 256 blocks (2 tiles of 128) x 2 tokens, 2 tokens per PSUM bank.
  EXPECT_EQ(count_ops(g, ".T_mm[", "L0.c0.gate"), 2u * 2u);
}

TEST(BatchedDecodeStructure, AllExpertsOnlyWhenAskedAndOverTheWholeBatch) {
  // B = 8: B·k/E = 1 no longer switches by itself.
  Built sel = build_batch("dense", 8, one_layer(false));
  EXPECT_FALSE(sel.decode.experts.all_experts);
  DataflowOptions all = one_layer(false);
  all.all_experts = true;
  Built b = build_batch("dense", 8, all);
  EXPECT_TRUE(b.decode.experts.all_experts);
  EXPECT_EQ(b.decode.experts.shard, ShardOn::hidden);
  EXPECT_EQ(b.decode.experts.size(), 64u);
  // Every expert once on each core (its half of H: [1024, 2, 256]), over all 8 tokens.
  EXPECT_EQ(count_ops(b.decode.graph, ".load_gate_up[", "L0.c0.e"), 64u);
  const Op* gu = find_op(b.decode.graph, "L0.c0.e63.load_gate_up[0]");
  ASSERT_NE(gu, nullptr);
  EXPECT_EQ(gu->bytes, 1024u * 2u * 256u * 2u);
  const Op* gate = find_op(b.decode.graph, "L0.c0.e63.gate.mm[0]");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->n, 8u);
}

TEST(BatchedDecodeStructure, RoutingOfTheWrongSizeIsAnInputError) {
  DataflowOptions o = one_layer();  // 4 tokens
  EXPECT_THROW(build_batch("dense", 3, o), InputError);
  EXPECT_THROW(build_batch("cardan", 5, o), InputError);
  o.all_experts = true;
  EXPECT_THROW(build_batch("dense", 5, o), InputError);
}

TEST(BatchedDecodeStructure, SeededRoutingIsDeterministicAndSeedDependent) {
  DataflowOptions a = one_layer(false), b = one_layer(false);
  a.routing_seed = 1;
  b.routing_seed = 2;
  auto experts = [](const Built& built) {
    std::vector<std::int32_t> ids;
    for (const CoreExperts& c : built.decode.experts.cores)
      for (const ExpertGroup& g : c.groups) ids.push_back(g.expert);
    return ids;
  };
  EXPECT_EQ(experts(build_batch("dense", 4, a)), experts(build_batch("dense", 4, a)));
  EXPECT_NE(experts(build_batch("dense", 4, a)), experts(build_batch("dense", 4, b)));
}

}  // namespace
}  // namespace stasim::test
