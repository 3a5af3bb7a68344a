// The kernels' inner mechanisms as graph structure, each switched on and off: PSUM banks assigned per role,
// pipelined gathers over expert groups, the shared round one expert ahead without reuse, the four down
// schedules, W4A8's layout round trip, the code-word table's element type.
#include <set>

#include "decode_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

DataflowOptions one_layer() {
  DataflowOptions o;
  o.layers = 1;
  return o;
}

// Banks of the PSUM groups whose name starts with `prefix` and contains `part`.
std::set<int> banks(const ScheduleGraph& g, const std::string& prefix, const std::string& part) {
  std::set<int> out;
  for (const PsumGroup& grp : g.psum_groups())
    if (grp.name.rfind(prefix, 0) == 0 && grp.name.find(part) != std::string::npos) out.insert(grp.bank);
  return out;
}

TEST(PsumPlanStructure, RolesHaveBanksOfTheirOwn) {
  ScheduleGraph graph;
  HardwareConfig hw = shipped_hw();
  KernelBuilder b(graph, hw, 8);
  PsumRoles roles;  // down 2, layout 1
  roles.table = 1;
  roles.running_sum = 1;
  PsumPlan plan(b, 0, roles);
  // 8 banks: running sum 7, down 5-6, layout 4, table 3, gate/up 0-2.
  EXPECT_EQ(plan.running_sum_banks(), std::vector<std::uint32_t>{7});
  EXPECT_EQ(plan.banks(PsumRole::down), 2u);
  EXPECT_EQ(plan.banks(PsumRole::gate_up), 3u);
  std::set<int> seen;
  for (int i = 0; i < 6; ++i) seen.insert(plan.open(PsumRole::gate_up, "g").bank);
  EXPECT_EQ(seen, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(plan.open(PsumRole::down, "d").bank, 5);
  EXPECT_EQ(plan.open(PsumRole::down, "d").bank, 6);
  EXPECT_EQ(plan.open(PsumRole::table, "t").bank, 3);
  roles.running_sum = 4;  // 4 + 2 + 1 + 1 = 8: no bank left for gate/up
  EXPECT_THROW(PsumPlan(b, 0, roles), InputError);
}

TEST(PsumPlanStructure, TheRunningSumTakesBanksOutOfTheGateUpPool) {
  DataflowOptions sbuf = one_layer();
  sbuf.down = {Stationary::weight, Accumulate::sbuf};
  Built a = build("qwen3-30b-a3b", "dense", sbuf);
  // Weight-stationary, SBUF sum: gate/up rotate over banks 0-5, each expert's y over 6-7.
  EXPECT_EQ(banks(a.decode.graph, "L0.c0.e", ".acc["), (std::set<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(banks(a.decode.graph, "L0.c0.e", ".y["), (std::set<int>{6, 7}));
  DataflowOptions psum = one_layer();
  psum.down = {Stationary::weight, Accumulate::psum};
  Built b = build("qwen3-30b-a3b", "dense", psum);
  // PSUM sum: 8 H tiles x 1 token fit one bank (7), held for the layer; gate/up keep 0-6, no per-expert y.
  EXPECT_EQ(banks(b.decode.graph, "L0.c0.moe", ".y_psum["), (std::set<int>{7}));
  EXPECT_EQ(banks(b.decode.graph, "L0.c0.e", ".acc["), (std::set<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(count_ops(b.decode.graph, ".y[", "L0.c0.e"), 0u);
  DataflowOptions act = one_layer();
  act.down = {Stationary::activation, Accumulate::psum};
  Built c = build("qwen3-30b-a3b", "dense", act);
  // Activation-stationary PSUM sum: [1, 1024] rows in 2 banks (6-7), the layout conversion's bank 5.
  EXPECT_EQ(banks(c.decode.graph, "L0.c0.moe", ".y_psum["), (std::set<int>{6, 7}));
  EXPECT_EQ(banks(c.decode.graph, "L0.c0.e", ".acc["), (std::set<int>{0, 1, 2, 3, 4}));
}

// The PSUM group named `name` (nullptr when none).
const PsumGroup* group_named(const ScheduleGraph& g, const std::string& name) {
  for (const PsumGroup& grp : g.psum_groups())
    if (grp.name == name) return &grp;
  return nullptr;
}

TEST(PsumPlanStructure, ExplicitAddressesPutEveryExpertOnTheSameBanks) {
  {
    ScheduleGraph graph;
    HardwareConfig hw = shipped_hw();
    KernelBuilder b(graph, hw, 8);
    PsumRoles roles;  // down 2 (not taken with explicit addresses), layout 1
    roles.explicit_addresses = true;
    PsumPlan plan(b, 0, roles);
    // 8 banks: layout 7, gate/up 0-6; the down role opens from the gate/up pool, by index, as gate and up do.
    EXPECT_EQ(plan.banks(PsumRole::down), 0u);
    EXPECT_EQ(plan.pool_banks(PsumRole::down), 7u);
    EXPECT_EQ(plan.open_at(PsumRole::gate_up, 1, "gate").bank, 1);
    EXPECT_EQ(plan.open_at(PsumRole::gate_up, 1, "up").bank, 1);
    EXPECT_EQ(plan.open_at(PsumRole::down, 0, "y").bank, 0);
    EXPECT_EQ(plan.open_at(PsumRole::gate_up, 8, "wraps").bank, 1);  // 8 mod 7
  }
  DataflowOptions o = one_layer();
  o.down = {Stationary::weight, Accumulate::sbuf};
  o.explicit_psum = true;
  Built a = build("qwen3-30b-a3b", "dense", o);
  const ScheduleGraph& g = a.decode.graph;
  // Qwen3 at one token: a core's 192 columns of I (768 / TP 4, H split over the cores) are 2 tiles of 128, so
  // gate and up take banks 0-1 (the same two); the down projection's 8 H tiles x 1 token fit one bank, bank 0.
  EXPECT_EQ(banks(g, "L0.c0.e", ".acc["), (std::set<int>{0, 1}));
  EXPECT_EQ(banks(g, "L0.c0.e", ".y["), (std::set<int>{0}));
  // Every expert on the same banks: expert 1's gate tile 0 opens bank 0 after expert 0's down output, so it
  // waits for that group's release (its drain into the SBUF combine).
  const PsumGroup* down0 = group_named(g, "L0.c0.e0.y[0]");
  const PsumGroup* gate1 = group_named(g, "L0.c0.e1.gate.acc[0]");
  ASSERT_NE(down0, nullptr);
  ASSERT_NE(gate1, nullptr);
  EXPECT_EQ(down0->bank, 0);
  EXPECT_EQ(gate1->bank, 0);
  EXPECT_LT(down0->release_op, gate1->first_op);
  // Rotating (the default), the same two groups are on different banks: gate/up 0-5, y 6-7.
  o.explicit_psum = false;
  Built b = build("qwen3-30b-a3b", "dense", o);
  EXPECT_NE(group_named(b.decode.graph, "L0.c0.e1.gate.acc[0]")->bank, group_named(b.decode.graph, "L0.c0.e0.y[0]")->bank);
  // W4A8 in the megakernel likewise: its one 512-column MX tile per projection in bank 0 for gate and up, y in bank 0.
  o.explicit_psum = true;
  Built w = build("qwen3-30b-a3b", "w4a8-fused", o);
  EXPECT_EQ(banks(w.decode.graph, "L0.c0.e", ".acc["), (std::set<int>{0}));
  EXPECT_EQ(banks(w.decode.graph, "L0.c0.e", ".y["), (std::set<int>{0}));
}

TEST(DownScheduleStructure, TheFourCandidatesDifferAsOnTheHardware) {
  auto with = [](Stationary s, Accumulate a) {
    DataflowOptions o = one_layer();
    o.down = {s, a};
    return build("qwen3-30b-a3b", "dense", o);
  };
  Built ws = with(Stationary::weight, Accumulate::sbuf), wp = with(Stationary::weight, Accumulate::psum);
  Built as = with(Stationary::activation, Accumulate::sbuf), ap = with(Stationary::activation, Accumulate::psum);
  // Weight-stationary: 16 skinny matmuls per expert (m = 128 of H, n = 1 token); activation-stationary: 4 wide
  // ones (m = 1, n = 512) and 8 transposes back to [128 of H, T].
  EXPECT_EQ(count_ops(ws.decode.graph, ".down[", "L0.c0.e0."), 16u);
  EXPECT_EQ(ws.decode.graph.op(find_named(ws.decode.graph, "L0.c0.e0.down[0]")).n, 1u);
  EXPECT_EQ(count_ops(as.decode.graph, ".down[", "L0.c0.e0."), 4u);
  EXPECT_EQ(as.decode.graph.op(find_named(as.decode.graph, "L0.c0.e0.down[0]")).n, 512u);
  EXPECT_EQ(count_ops(as.decode.graph, ".layout_t[", "L0.c0.e0."), 8u);
  // SBUF sum: y_e drained, scaled by a_e and added per expert; PSUM sum: p scaled before, one drain at the end.
  EXPECT_EQ(count_ops(ws.decode.graph, ".combine[0].add", "L0.c0.e"), 7u);  // the first expert's is the sum
  EXPECT_EQ(count_ops(wp.decode.graph, ".p_scale", "L0.c0.e"), 8u);
  EXPECT_EQ(count_ops(wp.decode.graph, ".combine", "L0.c0.e"), 0u);
  EXPECT_EQ(count_ops(wp.decode.graph, "moe.y_drain", "L0.c0."), 1u);
  EXPECT_EQ(count_ops(ap.decode.graph, "moe.y.layout_t[", "L0.c0."), 8u);
  EXPECT_EQ(count_ops(ap.decode.graph, ".layout_t[", "L0.c0.e"), 0u);
}

TEST(GatherPipelineStructure, GroupsInJOrderWithGateAndUpAdjacent) {
  Built b = build("qwen3-30b-a3b", "cardan", one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // The GpSimd queue of core 0 in program order: g0.gate, g0.up, g1.gate, g1.up, ...
  std::vector<std::string> order;
  for (const Queue& q : g.queues())
    if (q.engine == Engine::gpsimd && q.core == 0)
      for (OpId v : q.ops)
        if (g.op(v).kind == OpKind::gather && g.name(v).rfind("L0.", 0) == 0) order.push_back(g.name(v));
  // Qwen3 (8, 384) at batch 1: ceil(8 / 2) = 4 experts per call, 2 groups.
  ASSERT_EQ(order.size(), 4u);
  for (std::size_t i = 0; i < order.size(); i += 2) {
    std::string group = "L0.c0.g" + std::to_string(i / 2) + ".";
    EXPECT_EQ(order[i], group + "gate.gather");
    EXPECT_EQ(order[i + 1], group + "up.gather");
  }
  // 192 elements per expert per partition (128 blocks of this core on 128 partitions x I_rank 192).
  const Op& gather = g.op(find_named(g, "L0.c0.g1.up.gather"));
  EXPECT_EQ(gather.free, 4u * 192u);
  EXPECT_EQ(gather.partitions, 128u);
  EXPECT_EQ(gather.index_bytes, 1u);
  EXPECT_EQ(gather.elements_per_index, 1u);
  // An expert's reduction waits for its own group's gather, not for a later group's J or gather.
  OpId first = find_named(g, "L0.c0.e0.gate.vq_sum[0]");
  EXPECT_TRUE(waits_for(g, first, find_named(g, "L0.c0.g0.gate.gather")));
  EXPECT_FALSE(waits_for(g, first, find_named(g, "L0.c0.g1.gate.gather")));
  EXPECT_FALSE(waits_for(g, first, find_named(g, "L0.c0.e7.gate.load_J")));
  EXPECT_TRUE(waits_for(g, first, find_named(g, "L0.c0.e3.gate.load_J")));  // its group's last J_e
  EXPECT_TRUE(waits_for(g, find_named(g, "L0.c0.e7.gate.vq_sum[0]"), find_named(g, "L0.c0.g1.gate.gather")));
  // Unbatched: one selection per expert and projection.
  DataflowOptions o = one_layer();
  o.batch_gathers = false;
  Built u = build("qwen3-30b-a3b", "cardan", o);
  EXPECT_EQ(count_ops(u.decode.graph, ".gather", "L0.c0.e"), 16u);
  EXPECT_EQ(u.decode.graph.op(find_named(u.decode.graph, "L0.c0.e5.up.gather")).free, 192u);
}

TEST(GatherPipelineStructure, WithoutReuseEachRoundIsIssuedOneExpertAhead) {
  DataflowOptions o = one_layer();
  o.reuse_shared_projections = false;
  o.batch_gathers = false;
  Built b = build("qwen3-30b-a3b", "cardan", o);
  const ScheduleGraph& g = b.decode.graph;
  // TensorE program order: expert e + 1's shared round (z, T) comes before expert e's reduction, so TensorE
  // computes it while GpSimd gathers for e.
  for (int e = 0; e + 1 < 8; ++e) {
    OpId next_round = find_named(g, "L0.c0.gate.e" + std::to_string(e + 1) + ".z_mm[0]");
    OpId reduction = find_named(g, "L0.c0.e" + std::to_string(e) + ".gate.vq_sum[0]");
    ASSERT_NE(next_round, kNoOp);
    ASSERT_NE(reduction, kNoOp);
    EXPECT_LT(queue_position(g, next_round), queue_position(g, reduction)) << e;
  }
  // Every expert's gather reads the one table of round 0 (only z is recomputed), and no round after it has a table.
  EXPECT_TRUE(waits_for(g, find_named(g, "L0.c0.e3.gate.gather"), find_named(g, "L0.c0.gate.e0.T_mm[0]")));
  EXPECT_EQ(find_named(g, "L0.c0.gate.e3.T_mm[0]"), kNoOp);
  // With --recompute-table each expert's gather reads its own round's table.
  o.recompute_table = true;
  Built t = build("qwen3-30b-a3b", "cardan", o);
  const ScheduleGraph& h = t.decode.graph;
  EXPECT_TRUE(waits_for(h, find_named(h, "L0.c0.e3.gate.gather"), find_named(h, "L0.c0.gate.e3.T_mm[0]")));
  EXPECT_FALSE(waits_for(h, find_named(h, "L0.c0.e3.gate.gather"), find_named(h, "L0.c0.gate.e4.T_mm[0]")));
}

TEST(W4a8Structure, TheFusedKernelsPackedOutputMakesALayoutRoundTripBeforeTheProduct) {
  Built b = build("qwen3-30b-a3b", "w4a8-fused", one_layer());
  const ScheduleGraph& g = b.decode.graph;
  // PSUM (packed) -> SBUF -> TensorE to token rows -> SBUF -> TensorE back to [128 of I, T] -> SBUF -> φ.
  const char* chain[] = {"L0.c0.e2.gate.mx_mm[3]", "L0.c0.e2.gate.mx_drain[0]", "L0.c0.e2.gate.mx_unswizzle[0]",
                         "L0.c0.e2.gate.mx_rows_drain[0]", "L0.c0.e2.gate.mx_transpose[1]", "L0.c0.e2.gate.mx_convert[1]",
                         "L0.c0.e2.phi[0]"};
  for (std::size_t i = 0; i + 1 < std::size(chain); ++i) {
    OpId from = find_named(g, chain[i]), to = find_named(g, chain[i + 1]);
    ASSERT_NE(from, kNoOp) << chain[i];
    ASSERT_NE(to, kNoOp) << chain[i + 1];
    EXPECT_TRUE(waits_for(g, to, from)) << chain[i + 1] << " <- " << chain[i];
  }
  EXPECT_EQ(g.op(find_named(g, "L0.c0.e2.gate.mx_unswizzle[0]")).engine, Engine::tensor);
}

// The FP32 table (the default; --no-fp32-table keeps it in BF16): T drained to SBUF as FP32, gathered as FP32 and
// reduced over the blocks by FP32 matmuls; nothing else changes. Qwen3 at (8, 384), one layer: per core 8 experts x 2 projections, each one vq_sum over its
// 2048 / 2 / 8 = 128 blocks (one tile), and the T of each projection drained once.
TEST(TableStructure, Fp32TableKeepsTheTableItsGathersAndTheirReductionInFp32) {
  DataflowOptions o = one_layer();
  EXPECT_TRUE(o.fp32_table);  // the default
  Built fp32 = build("qwen3-30b-a3b", "cardan", o);
  o.fp32_table = false;
  Built bf16 = build("qwen3-30b-a3b", "cardan", o);
  const ScheduleGraph& a = bf16.decode.graph;
  const ScheduleGraph& b = fp32.decode.graph;
  ASSERT_EQ(a.size(), b.size());
  std::size_t vq_sums = 0, gathers = 0, drains = 0, other_changed = 0;
  for (OpId v = 0; v < a.size(); ++v) {
    const std::string& name = a.name(v);
    ASSERT_EQ(name, b.name(v));
    const bool table_op = name.find(".vq_sum[") != std::string::npos || name.find(".T_drain[") != std::string::npos ||
                          (a.op(v).kind == OpKind::gather && name.find(".gather") != std::string::npos);
    if (!table_op) {
      other_changed += a.op(v).dtype != b.op(v).dtype;
      continue;
    }
    EXPECT_EQ(a.op(v).dtype, Dtype::bf16) << name;
    EXPECT_EQ(b.op(v).dtype, Dtype::fp32) << name;
    vq_sums += name.find(".vq_sum[") != std::string::npos;
    gathers += a.op(v).kind == OpKind::gather;
    drains += name.find(".T_drain[") != std::string::npos;
  }
  EXPECT_EQ(other_changed, 0u);
  EXPECT_EQ(vq_sums, 2u * 8u * 2u);  // cores x experts x projections
  EXPECT_EQ(drains, 2u * 2u);        // cores x projections
  EXPECT_GT(gathers, 0u);
  // The reduction: a ones vector stationary (m = 1, loaded), the expert's 192 columns of I moving, so it costs
  // max(min(64, 1), 192) + 32 = 224 cycles in BF16 and 4 x 192 + 32 = 800 in FP32 (the FP32 case of
  // CostModel.MatmulIsMovingFreeOrTheIssueFloorPlusLoadStationary).
  const OpId sum = find_named(a, "L0.c0.e0.gate.vq_sum[0]");
  ASSERT_NE(sum, kNoOp);
  EXPECT_EQ(b.op(sum).kind, OpKind::matmul);
  EXPECT_EQ(b.op(sum).m, 1u);
  EXPECT_EQ(b.op(sum).n, 192u);
  EXPECT_TRUE(b.op(sum).new_stationary);
}

}  // namespace
}  // namespace stasim::test
