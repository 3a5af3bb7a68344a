// GpSimd gather calls and descriptor generation (static, hardware DGE, software DGE) through the SystemC kernel,
// with the arithmetic written out. trn3: GpSimd 1.2 GHz, start 150 cycles per instruction (a call and its index
// widening each), 7 cycles per index, 1 per 32-bit word, a result written 370 cycles (308333 ps) after its
// interval; swdge 4 GpSimd cycles per descriptor; DMA issue 900 ns, hwdge 600 ns, 2.58 ns per descriptor of
// the core's shared descriptor processing, 528 B/ns per core; semaphore 50 ns.
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
  // g1: 150 + 384 x 7 + 384 words + widening (150 + 384) = 150 + 2688 + 384 + 534 = 3756 cycles = 3130 ns,
  // written 308333 ps later.
  EXPECT_EQ(run->end("g1"), 3130000 + 308333);
  // g2: one call whatever its 513 elements, 150 + 513 x 7 + 513 = 4254 cycles = 3545 ns, straight after g1's
  // interval (independent).
  EXPECT_EQ(run->start("g2"), 3130000);
  EXPECT_EQ(run->end("g2"), 6675000 + 308333);
  // g3 reads g2's result on the same engine, so starts when it is written: 150 + 1536 x 7 + 1536 + widening
  // (150 + 1536) = 14124 cycles = 11770 ns, + 308333.
  EXPECT_EQ(run->start("g3"), 6983333);
  EXPECT_EQ(run->end("g3"), 6983333 + 11770000 + 308333);
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
  // GpSimd program order: g1, w.dge, g2. g1: 14124 cycles = 11770 ns, written 308333 ps later.
  EXPECT_EQ(run->end("g1"), 11770000 + 308333);
  // w.dge: 768 B per partition in 192-byte runs = 4 descriptors x 128 partitions = 512;
  // 150 + 512 x 4 = 2198 cycles = 1831.667 ns -> 1831667 ps after g1.
  EXPECT_EQ(run->start("w.dge"), 11770000);
  EXPECT_EQ(run->end("w.dge"), 13601667);
  // g2 (3756 cycles = 3130 ns) waits behind the descriptor generation: the cost of swdge to the gathers.
  EXPECT_EQ(run->start("g2"), 13601667);
  EXPECT_EQ(run->end("g2"), 13601667 + 3130000 + 308333);
  // w: semaphore 50 ns after w.dge (descriptor generation has no result latency of its own), issue 900 ns,
  // then its 512 descriptors x 2.58 ns = 1320.96 ns, longer than its bytes (98304 / 0.528 = 186182 ps), with the
  // core's descriptor processing to itself: 13651667 + 900000 + 1320960 = 15872627.
  EXPECT_EQ(run->start("w"), 13651667);
  EXPECT_EQ(run->end("w"), 15872627);
  // The same load with static descriptors moves from 900 ns, with hardware DGE from 1500 ns (+600 ns on its
  // queue). Both are bound by their descriptors and share the core's processing: s alone for 600 ns (600 of
  // its 1320.96 ns), then half each: s's other 720.96 ns take 1441.92 ns -> 2941920; h did 720.96 ns by then,
  // its other 600 ns alone: 3541920.
  EXPECT_EQ(run->end("s"), 2941920);
  EXPECT_EQ(run->end("h"), 3541920);
  // GpSimd instructions: g1 call + widening, g2 call + widening = 4; w.dge's 1831.667 ns are GpSimd-active time
  // but part of w's dma_copy instruction, not a GpSimd instruction of its own (sim/core/isa_instructions.hpp).
  EXPECT_EQ(run->result.engines[int(Engine::gpsimd)].instructions, 4u);
}

}  // namespace
}  // namespace stasim::test
