// Cost formulas of docs/hardware-model.md with the arithmetic written out, on the shipped trn3 numbers
// (tensor 2.4 GHz; vector/scalar/gpsimd 1.2 GHz; MIN_II 64; LoadStationary 32; GPSIMD_START 150).
#include <gtest/gtest.h>

#include "engines/cost_model.hpp"

namespace stasim::cost {
namespace {

HardwareConfig trn3() { return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"); }

TEST(CostModel, MatmulIsMovingFreeOrTheIssueFloorPlusLoadStationary) {
  HardwareConfig hw = trn3();
  // max(min(64, 128), 512) = 512, + 32 LoadStationary = 544.
  EXPECT_DOUBLE_EQ(matmul_cycles(hw.tensor, 128, 512, Dtype::bf16, true), 544);
  // Stationary reused: 512.
  EXPECT_DOUBLE_EQ(matmul_cycles(hw.tensor, 128, 512, Dtype::bf16, false), 512);
  // Matrix-vector with the vector moving (n = 1): max(min(64, 128), 1) = 64 (PERF: one MM every 64 cycles).
  EXPECT_DOUBLE_EQ(matmul_cycles(hw.tensor, 128, 1, Dtype::bf16, false), 64);
  // A one-column stationary: max(min(64, 1), 512) = 512.
  EXPECT_DOUBLE_EQ(matmul_cycles(hw.tensor, 1, 512, Dtype::bf16, false), 512);
  // FP32 inputs cost 4x: 512 x 4 = 2048, + 32.
  EXPECT_DOUBLE_EQ(matmul_cycles(hw.tensor, 128, 512, Dtype::fp32, true), 2080);
}

// The what-if of tensor.throttle_stretches_floor = false: the throttle at rate 0.5 slows the moving stream only,
// max(min(64, m), n / 0.5) / max(min(64, m), n).
TEST(CostModel, ThrottlingOnlyTheMovingStreamLeavesTheIssueFloorAlone) {
  HardwareConfig hw = trn3();
  // A one-column stream under its 64-cycle floor: max(64, 1 / 0.5 = 2) / max(64, 1) = 64 / 64 = 1.
  EXPECT_DOUBLE_EQ(matmul_throttle_stretch(hw.tensor, 128, 1, 0.5), 1.0);
  // 48 columns: the stream (96 throttled) passes the floor: max(64, 96) / max(64, 48) = 96 / 64 = 1.5.
  EXPECT_DOUBLE_EQ(matmul_throttle_stretch(hw.tensor, 128, 48, 0.5), 1.5);
  // 512 columns: 1024 / 512 = 2, the whole-instruction stretch 1 / 0.5.
  EXPECT_DOUBLE_EQ(matmul_throttle_stretch(hw.tensor, 128, 512, 0.5), 2.0);
  // A one-column stationary has a floor of min(64, 1) = 1: 128 columns, 256 / 128 = 2.
  EXPECT_DOUBLE_EQ(matmul_throttle_stretch(hw.tensor, 1, 128, 0.5), 2.0);
  // At full rate nothing stretches.
  EXPECT_DOUBLE_EQ(matmul_throttle_stretch(hw.tensor, 128, 512, 1.0), 1.0);
}

TEST(CostModel, TransposeIsPartitionsOrFreeUpTo64) {
  HardwareConfig hw = trn3();
  EXPECT_DOUBLE_EQ(transpose_cycles(hw.tensor, 128, 128), 128);  // max(128, min(64, 128))
  EXPECT_DOUBLE_EQ(transpose_cycles(hw.tensor, 32, 512), 64);    // max(32, min(64, 512))
  EXPECT_DOUBLE_EQ(transpose_cycles(hw.tensor, 16, 20), 20);     // max(16, min(64, 20))
}

TEST(CostModel, ActivationHasTheIssueFloorAndTheReduceReadOut) {
  HardwareConfig hw = trn3();
  EXPECT_DOUBLE_EQ(activation_cycles(hw.scalar, 512, false), 512);  // max(64, 512)
  EXPECT_DOUBLE_EQ(activation_cycles(hw.scalar, 10, false), 64);    // max(64, 10)
  EXPECT_DOUBLE_EQ(activation_cycles(hw.scalar, 512, true), 576);   // 512 + 64
}

TEST(CostModel, TensorTensorPassesAndPerfMode) {
  HardwareConfig hw = trn3();
  EXPECT_DOUBLE_EQ(tensor_tensor_cycles(hw.vector, 512, Dtype::fp32, true), 512);   // one input in PSUM: N
  EXPECT_DOUBLE_EQ(tensor_tensor_cycles(hw.vector, 512, Dtype::fp32, false), 1024); // two SBUF passes: 2N
  EXPECT_DOUBLE_EQ(tensor_tensor_cycles(hw.vector, 512, Dtype::bf16, false), 256);  // BF16 perf mode: 512 / 2
  EXPECT_DOUBLE_EQ(tensor_tensor_cycles(hw.vector, 40, Dtype::fp32, false), 80);    // max(64, 2 x 40)
}

TEST(CostModel, TensorScalarAndCopyUseThePerfModeOnlyFromSbuf) {
  HardwareConfig hw = trn3();
  EXPECT_DOUBLE_EQ(tensor_scalar_cycles(hw.vector, 2048, Dtype::bf16, false), 512);  // 2048 / 4
  EXPECT_DOUBLE_EQ(tensor_scalar_cycles(hw.vector, 2048, Dtype::bf16, true), 2048);  // PSUM input: no perf mode
  EXPECT_DOUBLE_EQ(tensor_copy_cycles(hw.scalar, 2048, Dtype::bf16, false), 1024);   // ScalarE v4: 2048 / 2
  EXPECT_DOUBLE_EQ(tensor_copy_cycles(hw.vector, 128, Dtype::bf16, false), 64);      // max(64, 128 / 4 = 32)
  EXPECT_DOUBLE_EQ(tensor_copy_cycles(hw.vector, 512, Dtype::fp32, false), 512);
}

TEST(CostModel, ReduceMemsetIotaGather) {
  HardwareConfig hw = trn3();
  EXPECT_DOUBLE_EQ(tensor_reduce_cycles(hw.vector, 1024, Dtype::bf16), 512);  // N / 2 for BF16
  EXPECT_DOUBLE_EQ(tensor_reduce_cycles(hw.vector, 1024, Dtype::fp32), 1024); // N
  EXPECT_DOUBLE_EQ(memset_cycles(hw.vector, 1024, Dtype::bf16), 512);         // max(64, N / 2)
  EXPECT_DOUBLE_EQ(memset_cycles(hw.vector, 100, Dtype::fp32), 100);          // max(64, N)
  EXPECT_DOUBLE_EQ(iota_cycles(hw.gpsimd, 128), 278);                         // 150 + 128
}

TEST(CostModel, OpDurationConvertsWithTheEngineClockAndHonoursOverrides) {
  HardwareConfig hw = trn3();
  Op mm;
  mm.engine = Engine::tensor;
  mm.kind = OpKind::matmul;
  mm.k = 128;
  mm.m = 128;
  mm.n = 512;
  EXPECT_EQ(op_duration(mm, hw), 226667);  // 544 cycles / 2.4 GHz = 226.6667 ns
  EXPECT_EQ(op_latency_ps(mm, hw), 53333);  // its result 128 cycles (trn3 tensor.latency_cycles) later: 53.333 ns
  Op g;
  g.engine = Engine::gpsimd;
  g.kind = OpKind::gather;
  g.free = 512;
  // One ISA group of uint32 indices: 150 + 512 x 7 + 512 x 1 = 4246 cycles / 1.2 GHz = 3538.333 ns.
  EXPECT_EQ(op_duration(g, hw), 3538333);
  EXPECT_EQ(op_latency_ps(g, hw), 308333);   // 370 cycles (trn3 gpsimd.latency_cycles) / 1.2 GHz = 308.333 ns
  g.cycles = 600;
  EXPECT_EQ(op_duration(g, hw), 500000);   // an explicit cycle count replaces the formula
  EXPECT_EQ(op_latency_ps(g, hw), 0);      // and is all of the op
  g.duration_ps = 7000;
  EXPECT_EQ(op_duration(g, hw), 7000);
}

TEST(CostModel, SendrecvOnGpSimdsDmaIsItsFixedCostTheLinkLatencyAndTheBytesOverTheLink) {
  HardwareConfig hw = trn3();
  Op x;
  x.engine = Engine::gpsimd;
  x.kind = OpKind::sendrecv;
  x.bytes = 768;  // one expert's partial gate row, [1, 192] FP32
  x.dst = Location::peer;
  // trn3: gpsimd_dma_ns 500 + link latency 500 + 768 B / 100 B/ns = 1007.68 ns, in ns (no GpSimd cycles, no
  // static overhead: a DMA on GpSimd's own engine).
  EXPECT_EQ(op_duration(x, hw), 1007680);
  EXPECT_EQ(op_latency_ps(x, hw), 0);  // the transfer's time is all of it
  hw.dma.gpsimd_dma_ns = 200;
  hw.link.latency_ns = 1000;
  EXPECT_EQ(op_duration(x, hw), 1207680);  // 200 + 1000 + 7.68
  // An explicit cycle count (a schedule's `cycles:`) replaces the formula here as for every op: 600 / 1.2 GHz.
  x.cycles = 600;
  EXPECT_EQ(op_duration(x, hw), 500000);
}

}  // namespace
}  // namespace stasim::cost

namespace stasim::cost {
namespace {

Op vector_op(OpKind kind, std::uint32_t free, Dtype dtype = Dtype::bf16, Engine engine = Engine::vector) {
  Op op;
  op.engine = engine;
  op.kind = kind;
  op.free = free;
  op.dtype = dtype;
  op.partitions = 128;
  return op;
}

// The instructions real kernels use, each with the 2.26 ISA reference's estimated cost (docs/hardware-model.md
// "Instructions"), in cycles of the engine's 1.2 GHz clock: 1000 / 1.2 ps per cycle.
TEST(CostModel, TheInstructionsRealKernelsUse) {
  HardwareConfig hw = trn3();
  auto cycles = [&](const Op& op) { return op_duration_exact_ps(op, hw) * 1.2 / 1000; };
  EXPECT_NEAR(cycles(vector_op(OpKind::tensor_tensor_scan, 512)), 1024, 1e-9);      // 2N
  EXPECT_NEAR(cycles(vector_op(OpKind::bn_stats, 512)), 512, 1e-9);                 // N
  EXPECT_NEAR(cycles(vector_op(OpKind::bn_aggr, 48)), 208, 1e-9);                   // 13N/3 = 208
  EXPECT_NEAR(cycles(vector_op(OpKind::bn_aggr, 6)), 64, 1e-9);                     // 26 under MIN_II
  EXPECT_NEAR(cycles(vector_op(OpKind::scalar_tensor_tensor, 512)), 512, 1e-9);     // BF16, N even: N
  EXPECT_NEAR(cycles(vector_op(OpKind::scalar_tensor_tensor, 512, Dtype::fp32)), 1024, 1e-9);  // 2N
  EXPECT_NEAR(cycles(vector_op(OpKind::tensor_scalar_reduce, 512)), 576, 1e-9);     // N + 64 read-out
  Op select = vector_op(OpKind::select, 512);
  EXPECT_NEAR(cycles(select), 1024, 1e-9);                                          // both in SBUF: 2N
  select.input_in_psum = true;
  EXPECT_NEAR(cycles(select), 512, 1e-9);                                           // N
  EXPECT_NEAR(cycles(vector_op(OpKind::affine_select, 512, Dtype::bf16, Engine::gpsimd)), 150 + 512, 1e-9);
  EXPECT_NEAR(cycles(vector_op(OpKind::reciprocal, 512)), 4096, 1e-9);              // 8N
  EXPECT_NEAR(cycles(vector_op(OpKind::max8, 512)), 512, 1e-9);
  EXPECT_NEAR(cycles(vector_op(OpKind::copy_dynamic, 512)), 600, 1e-9);             // its 600-cycle floor
  // VectorE exponential (NeuronCore-v4): 4x ScalarE's exp on trn3, N / 4.
  EXPECT_NEAR(cycles(vector_op(OpKind::exponential, 512)), 128, 1e-9);
  // An accumulate flag adds the 64-cycle accumulator read-out: activation max(64, 512) + 64.
  Op act = vector_op(OpKind::activation, 512, Dtype::bf16, Engine::scalar);
  act.accumulate = true;
  EXPECT_NEAR(cycles(act), 576, 1e-9);
}

TEST(CostModel, LatencyIsSeparateFromTheIntervalAndTableLoadsCostTheirCycles) {
  HardwareConfig hw = trn3();
  // Tensor: 128 cycles at 2.4 GHz = 53333 ps; vector/scalar/gpsimd: 370 cycles at 1.2 GHz = 308333 ps.
  EXPECT_EQ(op_latency_ps(vector_op(OpKind::matmul, 512, Dtype::bf16, Engine::tensor), hw), 53333);
  EXPECT_EQ(op_latency_ps(vector_op(OpKind::tensor_copy, 512), hw), 308333);
  EXPECT_EQ(op_latency_ps(vector_op(OpKind::activation, 512, Dtype::bf16, Engine::scalar), hw), 308333);
  // An explicit duration or cycle count is the whole cost: no latency on top.
  Op fixed = vector_op(OpKind::tensor_copy, 512);
  fixed.duration_ps = 1000;
  EXPECT_EQ(op_latency_ps(fixed, hw), 0);
  // The activation-table load: 1570 ScalarE cycles / 1.2 GHz = 1308333 ps.
  EXPECT_EQ(table_load_ps(hw), 1308333);
}

}  // namespace
}  // namespace stasim::cost
