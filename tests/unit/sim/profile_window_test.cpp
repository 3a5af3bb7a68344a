// The device-profile window: figures over the ops a predicate keeps, per physical core and summed over the rank.
#include <gtest/gtest.h>

#include "sim/kernel/profile_window.hpp"

namespace stasim {
namespace {

OpId add_op_on(ScheduleGraph& g, const char* name, Engine engine, std::uint32_t core, const char* phase,
               std::uint64_t hbm_bytes = 0) {
  Op op;
  op.engine = engine;
  op.core = core;
  op.kind = OpKind::fixed;
  op.phase = g.phase_id(phase);
  if (hbm_bytes > 0) {
    op.src = Location::hbm;
    op.dst = Location::sbuf;
    op.bytes = hbm_bytes;
  }
  return g.add_op(op, name);
}

TEST(ProfileWindow, DecoderLayersLeaveOutEmbeddingAndLmHead) {
  ScheduleGraph g;
  HardwareConfig hw;
  hw.lnc = 2;
  OpId embed = add_op_on(g, "embed.gather", Engine::dma, 0, "embedding", 4096);
  OpId mm0 = add_op_on(g, "l0.mm", Engine::tensor, 0, "gate_up");
  OpId mm1 = add_op_on(g, "l0.mm.core1", Engine::tensor, 1, "gate_up");
  OpId w0 = add_op_on(g, "l0.w", Engine::dma, 0, "down", 1000);
  OpId w1 = add_op_on(g, "l0.w.core1", Engine::dma, 1, "down", 500);
  OpId head = add_op_on(g, "lm_head.mm", Engine::tensor, 0, "lm_head");
  OpId unrun = add_op_on(g, "l1.mm", Engine::tensor, 0, "gate_up");
  SimResult r;
  r.ops.assign(g.size(), OpTiming{});
  r.ops[embed] = {0, 100, kNoOp, BoundKind::start};
  r.ops[mm0] = {100, 400, kNoOp, BoundKind::start};   // core 0 tensor: 300
  r.ops[mm1] = {200, 600, kNoOp, BoundKind::start};   // core 1 tensor: 400
  r.ops[w0] = {150, 350, kNoOp, BoundKind::start};    // core 0 DMA: 200
  r.ops[w1] = {300, 500, kNoOp, BoundKind::start};    // core 1 DMA: 200
  r.ops[head] = {600, 900, kNoOp, BoundKind::start};
  (void)unrun;                                         // never ran: left out

  const WindowFigures w = summarize_window(g, hw, r, [&](const Op& op) { return in_decoder_layers(g, op); });
  const int tensor = static_cast<int>(Engine::tensor), dma = static_cast<int>(Engine::dma);
  // Kept: mm0, mm1, w0, w1. Span: first start 100 to last end 600 = 500.
  EXPECT_EQ(w.span_ps, 500);
  // Tensor: 300 on core 0 + 400 on core 1 = 700 summed; union [100, 600) = 500.
  EXPECT_EQ(w.active_sum_ps[tensor], 700);
  EXPECT_EQ(w.active_union_ps[tensor], 500);
  // DMA: 200 + 200 = 400 summed; union [150, 500) = 350. The embedding's 100 ps are outside the window.
  EXPECT_EQ(w.active_sum_ps[dma], 400);
  EXPECT_EQ(w.active_union_ps[dma], 350);
  EXPECT_EQ(w.instructions[tensor], 2u);  // mm0, mm1 (the LM head's matmul is outside)
  EXPECT_EQ(w.instructions[dma], 2u);
  EXPECT_EQ(w.hbm_read_bytes, 1500u);      // 1000 + 500; the embedding's 4096 left out

  // Keeping everything: span 0..900, tensor sum 300 + 400 + 300 (head) = 1000, HBM 1500 + 4096 = 5596.
  const WindowFigures all = summarize_window(g, hw, r, [](const Op&) { return true; });
  EXPECT_EQ(all.span_ps, 900);
  EXPECT_EQ(all.active_sum_ps[tensor], 1000);
  EXPECT_EQ(all.hbm_read_bytes, 5596u);
}

// A profile's DMA-active time counts collectives too (the CC cores run them on the DMA engines): the union of
// both kinds over the rank's cores.
TEST(ProfileWindow, DmaActiveWithCollectivesIsTheUnionOfBoth) {
  ScheduleGraph g;
  HardwareConfig hw;
  hw.lnc = 2;
  OpId w0 = add_op_on(g, "w0", Engine::dma, 0, "down", 100);
  OpId w1 = add_op_on(g, "w1", Engine::dma, 1, "down", 100);
  OpId ar = add_op_on(g, "all_reduce", Engine::collective, 0, "collective");
  OpId mm = add_op_on(g, "mm", Engine::tensor, 0, "gate_up");
  SimResult r;
  r.ops.assign(g.size(), OpTiming{});
  r.ops[w0] = {0, 100, kNoOp, BoundKind::start};
  r.ops[w1] = {50, 150, kNoOp, BoundKind::start};
  r.ops[ar] = {120, 400, kNoOp, BoundKind::start};
  r.ops[mm] = {400, 900, kNoOp, BoundKind::start};  // a compute engine: not counted
  const WindowFigures w = summarize_window(g, hw, r, [](const Op&) { return true; });
  // DMA alone: [0, 150) = 150. With the all-reduce: [0, 150) and [120, 400) join to [0, 400) = 400.
  EXPECT_EQ(w.active_union_ps[static_cast<int>(Engine::dma)], 150);
  EXPECT_EQ(w.dma_with_collectives_union_ps, 400);
}

TEST(ProfileWindow, EmptyWindowIsAllZeros) {
  ScheduleGraph g;
  HardwareConfig hw;
  OpId a = add_op_on(g, "a", Engine::vector, 0, "attention");
  SimResult r;
  r.ops.assign(g.size(), OpTiming{});
  r.ops[a] = {10, 20, kNoOp, BoundKind::start};
  const WindowFigures w = summarize_window(g, hw, r, [](const Op&) { return false; });
  EXPECT_EQ(w.span_ps, 0);
  EXPECT_EQ(w.active_sum_ps[static_cast<int>(Engine::vector)], 0);
  EXPECT_EQ(w.instructions[static_cast<int>(Engine::vector)], 0u);
}

}  // namespace
}  // namespace stasim
