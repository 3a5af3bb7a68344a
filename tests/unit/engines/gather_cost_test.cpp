// GpSimd gathers as selection calls (engines/gather_cost.hpp, sim/core/isa_instructions.hpp) with the arithmetic
// written out, on trn3: start 150 cycles per instruction (the call and the index widening each), 7 cycles per
// index, 1 cycle per 32-bit word, GpSimd at 1.2 GHz.
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

TEST(GatherCost, OneCallOfUint8CodeIndices) {
  HardwareConfig hw = trn3();
  // 384 BF16 elements per partition, one per index, uint8 indices (one expert's selection at d = 4):
  // start 150 + 384 indices x 7 + 384 words x 1 + widening (start 150 + 384) = 150 + 2688 + 384 + 534 = 3756.
  Op g = gather(384, 1, 1);
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, g), 3756);
  EXPECT_EQ(isa_instructions(g), 2u);  // the call and the widening copy
  EXPECT_EQ(op_duration(g, hw), 3130000);  // 3756 / 1.2 GHz = 3130 ns
}

TEST(GatherCost, ACallStartsOnceWhateverItsSize) {
  HardwareConfig hw = trn3();
  // uint32 indices: no widening. 512 elements: 150 + 3584 + 512 = 4246, one instruction.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(512, 1, 4)), 4246);
  EXPECT_EQ(isa_instructions(gather(512, 1, 4)), 1u);
  // 513 elements (two of nc_n_gather's 512-element ISA groups) are still one call: 150 + 513 x 7 + 513 = 4254.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(513, 1, 4)), 4254);
  EXPECT_EQ(isa_instructions(gather(513, 1, 4)), 1u);
  // Four experts batched (1536 per partition, uint8): 150 + 10752 + 1536 + widening (150 + 1536) = 14124, two
  // instructions; the same four one call each cost 4 x 3756 = 15024 and eight instructions.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(1536, 1, 1)), 14124);
  EXPECT_EQ(isa_instructions(gather(1536, 1, 1)), 2u);
  // The partitions run in parallel lanes: 16 or 128 partitions cost the same.
  Op narrow = gather(1536, 1, 1);
  narrow.partitions = 16;
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, narrow), 14124);
}

TEST(GatherCost, ElementsPerIndexAmortiseTheIndexAndPackNarrowWords) {
  HardwareConfig hw = trn3();
  // local_gather style, 8 BF16 elements per index, 4096 per partition, uint16 indices:
  // start 150; 512 indices x 7 = 3584; 4096 / min(4/2, 8) = 2048 words; widening 150 + 512 = 662.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 8, 2)), 150 + 3584 + 2048 + 662);
  EXPECT_EQ(isa_instructions(gather(4096, 8, 2)), 2u);
  // FP32, 4 per index, 64 elements: 150 + 16 x 7 + 64 / min(1, 4) = 150 + 112 + 64 = 326.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(64, 4, 4, Dtype::fp32)), 326);
  // The per-index term alone shrinks 8x from one to eight elements per index (same 4096 BF16 elements, uint32):
  // e = 1: 150 + 28672 + 4096 = 32918; e = 8: 150 + 3584 + 2048 = 5782.
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 1, 4)), 32918);
  EXPECT_DOUBLE_EQ(gather_cycles(hw.gpsimd, gather(4096, 8, 4)), 5782);
}

TEST(GatherCost, OtherOpsAreOneInstruction) {
  HardwareConfig hw = trn3();
  Op mm;
  mm.kind = OpKind::matmul;
  EXPECT_EQ(isa_instructions(mm), 1u);
}

// Software descriptor generation is GpSimd time inside the dma_copy instruction it serves: no GpSimd instruction.
TEST(GatherCost, DescriptorGenerationIsNoInstructionOfItsOwn) {
  Op gen;
  gen.kind = OpKind::descriptors;
  gen.engine = Engine::gpsimd;
  EXPECT_EQ(isa_instructions(gen), 0u);
}

}  // namespace
}  // namespace stasim::cost
