// GpSimd gathers in ISA groups (engines/gather_cost.hpp, sim/core/isa_instructions.hpp) with the arithmetic
// written out, on trn3: start 150 cycles per group, 512 elements per group, 7 cycles per index, 1 cycle per
// 32-bit word, MIN_II 64 for the index widening, GpSimd at 1.2 GHz.
#include <gtest/gtest.h>

#include "engines/cost_model.hpp"
#include "engines/gather_cost.hpp"
#include "sim/core/isa_instructions.hpp"

namespace stasim::cost {
namespace {

HardwareConfig trn3() { return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"); }

Op gather(std::uint32_t elements, std::uint16_t per_index, std::uint8_t index_bytes, Dtype dtype = Dtype::bf16) {
  Op op;
  op.engine = Engine::gpsimd;
  op.kind = OpKind::gather;
  op.free = elements;
  op.elements_per_index = per_index;
  op.index_bytes = index_bytes;
  op.dtype = dtype;
  return op;
}

TEST(GatherCost, OneGroupOfUint8CodeIndices) {
  HardwareConfig hw = trn3();
  // 384 BF16 elements per partition, one per index, uint8 indices (one expert's selection at d = 4):
  // 1 group x 150 + 384 indices x 7 + 384 words x 1 + widening max(64, 384) = 150 + 2688 + 384 + 384 = 3606.
  Op g = gather(384, 1, 1);
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, g), 3606);
  EXPECT_EQ(isa_instructions(g, hw), 2u);  // the group and the widening copy
  EXPECT_EQ(op_duration(g, hw, false), 3005000);  // 3606 / 1.2 GHz = 3005 ns
}

TEST(GatherCost, GroupsFollowTheElementsOfOnePartition) {
  HardwareConfig hw = trn3();
  // uint32 indices: no widening. 512 elements: one group, 150 + 3584 + 512 = 4246.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(512, 1, 4)), 4246);
  EXPECT_EQ(isa_instructions(gather(512, 1, 4), hw), 1u);
  // 513 elements: a second group, 300 + 513 x 7 + 513 = 300 + 3591 + 513 = 4404.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(513, 1, 4)), 4404);
  EXPECT_EQ(isa_instructions(gather(513, 1, 4), hw), 2u);
  // Eight experts batched (1536 per partition, uint8): 3 groups 450 + 10752 + 1536 + widening 1536 = 14274,
  // 3 + 1 = 4 instructions.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(1536, 1, 1)), 14274);
  EXPECT_EQ(isa_instructions(gather(1536, 1, 1), hw), 4u);
  // The partitions run in parallel lanes: 16 or 128 partitions cost the same.
  Op narrow = gather(1536, 1, 1);
  narrow.partitions = 16;
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, narrow), 14274);
}

TEST(GatherCost, ElementsPerIndexAmortiseTheIndexAndPackNarrowWords) {
  HardwareConfig hw = trn3();
  // local_gather style, 8 BF16 elements per index, 4096 per partition, uint16 indices:
  // 8 groups x 150 = 1200; 512 indices x 7 = 3584; 4096 / min(4/2, 8) = 2048 words; widening max(64, 512) = 512.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 8, 2)), 1200 + 3584 + 2048 + 512);
  EXPECT_EQ(isa_instructions(gather(4096, 8, 2), hw), 9u);
  // FP32, 4 per index, 64 elements: 150 + 16 x 7 + 64 / min(1, 4) = 150 + 112 + 64 = 326.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(64, 4, 4, Dtype::fp32)), 326);
  // The per-index term alone shrinks 8x from one to eight elements per index (same 4096 BF16 elements, uint32):
  // e = 1: 1200 + 28672 + 4096 = 33968; e = 8: 1200 + 3584 + 2048 = 6832.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 1, 4)), 33968);
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 8, 4)), 6832);
}

TEST(GatherCost, OtherOpsAreOneInstruction) {
  HardwareConfig hw = trn3();
  Op mm;
  mm.kind = OpKind::matmul;
  EXPECT_EQ(isa_instructions(mm, hw), 1u);
  Op gen;
  gen.kind = OpKind::descriptors;
  EXPECT_EQ(isa_instructions(gen, hw), 1u);
}

}  // namespace
}  // namespace stasim::cost
