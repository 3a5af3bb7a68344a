// Batched decode as a graph: the union of the batch's experts loaded once per step, each expert's tokens
// grouped by the route alignment as its matmuls' free dimension, the all-experts switch, and routing errors.
#include "decode_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

// OLMoE (E = 64, k = 8): four tokens whose choices overlap. Distinct experts: 0..15 and 20..23 = 20.
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

DataflowOptions one_layer() {
  DataflowOptions o;
  o.layers = 1;
  return o;
}

const Op* find_op(const ScheduleGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v)
    if (g.name(v) == name) return &g.op(v);
  return nullptr;
}

TEST(BatchedDecodeStructure, EachDistinctExpertOfTheBatchIsLoadedOnce) {
  DataflowOptions o = one_layer();
  o.routes = overlapping_routes();
  Built b = build_batch("dense", 4, o);
  // B·k/E = 4 x 8 / 64 = 0.5 < 1: selective loading of the 20 distinct experts (not 4 x 8 = 32 routes).
  EXPECT_FALSE(b.decode.experts.all_experts);
  ASSERT_EQ(b.decode.experts.size(), 20u);
  // OLMoE: I = 1024, tp 4 -> 256 per rank, 128 per core: one gate chunk, one up chunk, one down chunk per
  // expert per core, so 3 x 20 = 60 weight loads on each core.
  EXPECT_EQ(count_ops(b.decode.graph, ".load", "L0.c0.e"), 60u);
  EXPECT_EQ(count_ops(b.decode.graph, ".load", "L0.c1.e"), 60u);
  EXPECT_EQ(count_ops(b.decode.graph, ".gate.load[", "L0.c0.e"), 20u);
  EXPECT_EQ(count_ops(b.decode.graph, ".load", "L0.c0.e20."), 0u);
}

TEST(BatchedDecodeStructure, TokensPerExpertPaddedToTheAlignmentBlockAreTheFreeDimension) {
  DataflowOptions o = one_layer();
  o.routes = overlapping_routes();
  Built b = build_batch("dense", 4, o);
  // Block size: the first b in {8, ...} with 32 routes / 64 experts / b < 0.9 is 8. Expert 0 (group 0) serves
  // tokens 0 and 2: 2 tokens, padded to 8 rows; expert 20 (group 16) serves token 2 alone: 1 -> 8.
  EXPECT_EQ(b.decode.experts.block_size, 8);
  EXPECT_EQ(b.decode.experts.groups[0].expert, 0);
  EXPECT_EQ(b.decode.experts.groups[0].tokens, 2u);
  EXPECT_EQ(b.decode.experts.groups[0].padded_tokens, 8u);
  EXPECT_EQ(b.decode.experts.groups[16].expert, 20);
  EXPECT_EQ(b.decode.experts.groups[16].tokens, 1u);
  const Op* gate = find_op(b.decode.graph, "L0.c0.e0.gate.mm[0]");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->m, 8u);  // hidden [128, T_e] stationary
  const Op* down = find_op(b.decode.graph, "L0.c0.e0.down[0]");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->n, 8u);  // weight-stationary down: p^T [I, T_e] moving
}

TEST(BatchedDecodeStructure, CardanGathersCoverEachExpertsTokens) {
  DataflowOptions o = one_layer();
  o.routes = overlapping_routes();
  Built b = build_batch("cardan", 4, o);
  // One batched gather per projection: the 32 routes' selections, 32 x (H/d = 256) x 128 columns = 1048576,
  // 8192 per partition.
  std::size_t gathers = 0;
  for (OpId v = 0; v < b.decode.graph.size(); ++v) {
    const Op& op = b.decode.graph.op(v);
    if (op.kind != OpKind::gather || b.decode.graph.name(v).rfind("L0.c0.", 0) != 0) continue;
    ++gathers;
    EXPECT_EQ(op.free, 32u * 256u * 128u / 128u);
  }
  EXPECT_EQ(gathers, 2u);
  // J and C of every distinct expert once per projection: 20 x 2 each.
  EXPECT_EQ(count_ops(b.decode.graph, ".load_J", "L0.c0."), 40u);
  EXPECT_EQ(count_ops(b.decode.graph, ".load_C", "L0.c0."), 40u);
  // T is per token: (H/d) x B = 256 x 4 (block, token) rows in 8 stationary tiles of 128, per projection.
  EXPECT_EQ(count_ops(b.decode.graph, ".T_mm[", "L0.c0."), 2u * 8u);
}

TEST(BatchedDecodeStructure, AllExpertsModeFromBkOverEOfOne) {
  // B = 8: 8 x 8 / 64 = 1.0 reaches DEFAULT_SELECTIVE_LOADING_THRESHOLD: all 64 experts, each over all 8 tokens.
  Built b = build_batch("dense", 8, one_layer());
  EXPECT_TRUE(b.decode.experts.all_experts);
  EXPECT_EQ(b.decode.experts.size(), 64u);
  EXPECT_EQ(count_ops(b.decode.graph, ".gate.load[", "L0.c0.e"), 64u);
  const Op* gate = find_op(b.decode.graph, "L0.c0.e63.gate.mm[0]");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->m, 8u);
  // B = 7: 56 / 64 < 1 stays selective.
  EXPECT_FALSE(build_batch("dense", 7, one_layer()).decode.experts.all_experts);
  // A threshold of 0 never switches.
  DataflowOptions never = one_layer();
  never.all_experts_threshold = 0;
  EXPECT_FALSE(build_batch("dense", 8, never).decode.experts.all_experts);
}

TEST(BatchedDecodeStructure, RoutingOfTheWrongSizeIsAnInputError) {
  DataflowOptions o = one_layer();
  o.routes = overlapping_routes();  // 4 tokens
  EXPECT_THROW(build_batch("dense", 3, o), InputError);
  EXPECT_THROW(build_batch("cardan", 5, o), InputError);
}

TEST(BatchedDecodeStructure, SeededRoutingIsDeterministicAndSeedDependent) {
  DataflowOptions a = one_layer(), b = one_layer();
  a.routing_seed = 1;
  b.routing_seed = 2;
  auto experts = [](const Built& built) {
    std::vector<std::int32_t> ids;
    for (const ExpertGroup& g : built.decode.experts.groups) ids.push_back(g.expert);
    return ids;
  };
  EXPECT_EQ(experts(build_batch("dense", 4, a)), experts(build_batch("dense", 4, a)));
  EXPECT_NE(experts(build_batch("dense", 4, a)), experts(build_batch("dense", 4, b)));
}

}  // namespace
}  // namespace stasim::test
