// GpSimd gather calls and descriptor generation (static, hardware DGE, software DGE) through the SystemC kernel,
// with the arithmetic written out. trn3: GpSimd 1.2 GHz, start 150 cycles per instruction (a call and its index
// widening each), 7 cycles per index, 1 per 32-bit word, static overhead 100 cycles; swdge 4 GpSimd cycles
// per descriptor; DMA fixed 1300 ns, hwdge 600 ns, 62 ns per descriptor over the engines used (16 for 128
// partitions), 528 B/ns per core; semaphore 50 ns.
#include "schedule_fixture.hpp"

namespace stasim::test {
namespace {

TEST(DgeGather, GathersAtSeveralSizesRunInProgramOrder) {
  auto run = simulate_yaml(R"(
ops:
  - {name: g1, engine: gpsimd, kind: gather, free: 384, index_bytes: 1}
  - {name: g2, engine: gpsimd, kind: gather, free: 513, index_bytes: 4}
  - {name: g3, engine: gpsimd, kind: gather, free: 1536, index_bytes: 1, deps: [g2]}
)", trn3());
  // g1: 150 + 384 x 7 + 384 words + widening (150 + 384) = 150 + 2688 + 384 + 534 = 3756 cycles = 3130 ns.
  EXPECT_EQ(run->end("g1"), 3130000);
  // g2: one call whatever its 513 elements, 150 + 513 x 7 + 513 = 4254 cycles = 3545 ns, straight after g1
  // (independent).
  EXPECT_EQ(run->start("g2"), 3130000);
  EXPECT_EQ(run->end("g2"), 6675000);
  // g3 reads g2's result on the same engine: 150 + 1536 x 7 + 1536 + widening (150 + 1536) = 14124 cycles,
  // + 100 static overhead = 14224 cycles = 11853.333 ns -> 11853333 ps.
  EXPECT_EQ(run->end("g3"), 6675000 + 11853333);
  // Instructions: (call + widening) + call + (call + widening) = 5.
  EXPECT_EQ(run->result.engines[int(Engine::gpsimd)].instructions, 5u);
}

TEST(DgeGather, SoftwareDgeWaitsForTheGatherAndDelaysTheNext) {
  auto run = simulate_yaml(R"(
ops:
  - {name: g1, engine: gpsimd, kind: gather, free: 1536, index_bytes: 1}
  - {name: w, engine: dma, queue: 0, bytes: 98304, contiguous_bytes: 192, dge: swdge}
  - {name: g2, engine: gpsimd, kind: gather, free: 384, index_bytes: 1}
  - {name: s, engine: dma, queue: 1, bytes: 98304, contiguous_bytes: 192}
  - {name: h, engine: dma, queue: 2, bytes: 98304, contiguous_bytes: 192, dge: hwdge}
)", trn3());
  // GpSimd program order: g1, w.dge, g2. g1: 14124 cycles = 11770 ns.
  EXPECT_EQ(run->end("g1"), 11770000);
  // w.dge: 768 B per partition in 192-byte runs = 4 descriptors x 128 partitions = 512;
  // 150 + 512 x 4 = 2198 cycles = 1831.667 ns -> 1831667 ps after g1.
  EXPECT_EQ(run->start("w.dge"), 11770000);
  EXPECT_EQ(run->end("w.dge"), 13601667);
  // g2 (3756 cycles = 3130 ns) waits behind the descriptor generation: the cost of swdge to the gathers.
  EXPECT_EQ(run->start("g2"), 13601667);
  EXPECT_EQ(run->end("g2"), 16731667);
  // w: semaphore 50 ns after w.dge, issue 1300 ns, then its 512 descriptors x 62 ns / 16 engines = 1984 ns,
  // longer than its bytes (98304 / 0.528 = 186182 ps): 13651667 + 1300000 + 1984000 = 16935667.
  EXPECT_EQ(run->start("w"), 13651667);
  EXPECT_EQ(run->end("w"), 16935667);
  // The same load with static descriptors: 1300000 + 1984000; with hardware DGE + 600 ns on its queue. Both
  // run at their descriptors' pace (0.0496 B/ps each), far below the core's 0.528, so neither slows the other.
  EXPECT_EQ(run->end("s"), 3284000);
  EXPECT_EQ(run->end("h"), 3884000);
  // GpSimd instructions: g1 call + widening, g2 call + widening = 4; w.dge's 1831.667 ns are GpSimd-active time
  // but part of w's dma_copy instruction, not a GpSimd instruction of its own (sim/core/isa_instructions.hpp).
  EXPECT_EQ(run->result.engines[int(Engine::gpsimd)].instructions, 4u);
}

}  // namespace
}  // namespace stasim::test
