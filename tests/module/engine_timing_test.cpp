// Compute engines through the SystemC kernel: a matmul waiting on a DMA, semaphore latency between engines,
// none within one engine, an instruction's interval (the engine is busy) against its latency (its result is
// written), ScalarE's activation-table loads, PSUM bank contention, the critical path of a three-engine chain,
// deadlock and SBUF overflow reporting, determinism. trn3 clocks: tensor 2.4 GHz, vector/scalar/gpsimd
// 1.2 GHz; latencies: tensor 128 cycles (53333 ps), the others 370 cycles (308333 ps); a DMA's consumer sees
// it core.dma.completion_ns = 290 ns after its last byte.
#include <gmock/gmock.h>

#include <random>

#include "dataflows/random_dag.hpp"
#include "sim/kernel/result_summary.hpp"
#include "schedule_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

TEST(EngineTiming, MatmulWaitsForItsWeightsThenTheDrainWaitsForIt) {
  auto run = simulate_yaml(R"(
ops:
  - {name: w, engine: dma, bytes: 1048576}
  - {name: mm, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, deps: [w], psum_bank: 0}
  - {name: cp, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm], releases_psum_bank: 0}
)", trn3_unthrottled());
  // w: 900000 issue + ceil(1048576 / 0.528) = 900000 + 1985940 = 2885940 ps.
  EXPECT_EQ(run->end("w"), 2885940);
  // mm: + 290 ns completion (DMA -> tensor); interval max(min(64, 128), 512) + 32 LoadStationary = 544 cycles
  // / 2.4 GHz = 226666.7 -> 226667 ps, then its 128-cycle latency, 53333 ps: written at 3175940 + 280000.
  EXPECT_EQ(run->start("mm"), 3175940);
  EXPECT_EQ(run->end("mm"), 3175940 + 280000);
  EXPECT_EQ(run->bound("mm"), "dep:w");
  // cp: + 50 ns semaphore; PSUM input, so no BF16 perf mode: 512 cycles / 1.2 GHz = 426667 ps, + 308333 latency.
  EXPECT_EQ(run->start("cp"), 3455940 + 50000);
  EXPECT_EQ(run->end("cp"), 3505940 + 426667 + 308333);
  const CriticalPath& cp = run->result.critical_path;
  EXPECT_EQ(cp.total_ps, 4240940);
  ASSERT_EQ(cp.ops.size(), 3u);
  EXPECT_EQ(cp.by_engine_ps[int(Engine::dma)], 2885940);
  EXPECT_EQ(cp.by_engine_ps[int(Engine::tensor)], 280000);   // interval and latency
  EXPECT_EQ(cp.by_engine_ps[int(Engine::vector)], 735000);
  EXPECT_EQ(cp.wait_ps, 340000);  // the DMA completion (290 ns) and one semaphore hop (50 ns)
  EXPECT_EQ(run->result.psum_peak_banks, 1u);
}

TEST(EngineTiming, SemaphoreOnlyAcrossEnginesAndCriticalPathOfAThreeEngineChain) {
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: tensor, duration_ns: 100}
  - {name: b, engine: vector, deps: [a], duration_ns: 200}
  - {name: d, engine: scalar, duration_ns: 50}
  - {name: c, engine: scalar, deps: [b], duration_ns: 300}
  - {name: e, engine: scalar, deps: [c], cycles: 120}
)", trn3_unthrottled());
  // a 0-100; b 150-350 (+50 semaphore); d 0-50; c waits for b: 400-700; e same engine, no semaphore:
  // 120 cycles / 1.2 GHz = 100 ns -> 700-800 (an explicit `cycles` replaces the formula and its overheads).
  EXPECT_EQ(run->start("b"), 150000);
  EXPECT_EQ(run->start("c"), 400000);
  EXPECT_EQ(run->bound("c"), "dep:b");
  EXPECT_EQ(run->start("e"), 700000);
  EXPECT_EQ(run->end("e"), 800000);
  const CriticalPath& cp = run->result.critical_path;
  EXPECT_EQ(cp.total_ps, 800000);
  std::vector<std::string> names;
  for (OpId v : cp.ops) names.push_back(run->schedule.graph.name(v));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "e"}));
  EXPECT_EQ(cp.by_engine_ps[int(Engine::tensor)], 100000);
  EXPECT_EQ(cp.by_engine_ps[int(Engine::vector)], 200000);
  EXPECT_EQ(cp.by_engine_ps[int(Engine::scalar)], 400000);
  EXPECT_EQ(cp.wait_ps, 100000);
  EXPECT_EQ(run->result.engines[int(Engine::scalar)].active_ps, 450000);  // 50 + 300 + 100
  EXPECT_EQ(run->result.engines[int(Engine::scalar)].instructions, 3u);
}

TEST(EngineTiming, EngineActivePerCoreUnionAndSum) {
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: tensor, core: 0, duration_ns: 100}
  - {name: b, engine: tensor, core: 1, duration_ns: 100}
  - {name: c, engine: tensor, core: 1, duration_ns: 50}
)", trn3_unthrottled());
  // Core 0: a 0-100 ns; core 1: b 0-100, c 100-150. Per core 100 and 150 ns; any core busy (union) 0-150 =
  // 150 ns; summed over the rank's two physical cores 250 ns.
  const int t = int(Engine::tensor);
  EXPECT_EQ(run->result.per_core[0][t].active_ps, 100000);
  EXPECT_EQ(run->result.per_core[1][t].active_ps, 150000);
  EXPECT_EQ(run->result.engines[t].active_ps, 150000);
  EXPECT_EQ(run->result.engines[t].active_sum_ps, 250000);
}

TEST(EngineTiming, ADependentInstructionPaysTheLatencyAnIndependentOneOnlyTheInterval) {
  auto run = simulate_yaml(R"(
ops:
  - {name: v1, engine: vector, kind: tensor_copy, free: 512}
  - {name: v2, engine: vector, kind: tensor_copy, free: 512, deps: [v1]}
  - {name: v3, engine: vector, kind: tensor_copy, free: 512}
)", trn3_unthrottled());
  // BF16 in SBUF: 4x perf mode: max(64, 512 / 4) = 128 cycles / 1.2 GHz = 106667 ps of interval; the result is
  // written 370 cycles (308333 ps) later: 415000.
  EXPECT_EQ(run->end("v1"), 415000);
  // v2 reads v1's result: it starts when it is written, no semaphore on one engine; ends 415000 + 415000.
  EXPECT_EQ(run->start("v2"), 415000);
  EXPECT_EQ(run->bound("v2"), "dep:v1");
  EXPECT_EQ(run->end("v2"), 830000);
  // v3 is independent: it issues as soon as v2's interval is over (415000 + 106667) and is written 415000 later.
  EXPECT_EQ(run->start("v3"), 521667);
  EXPECT_EQ(run->bound("v3"), "queue:v2");
  EXPECT_EQ(run->end("v3"), 936667);
}

TEST(EngineTiming, AStreamOfIndependentInstructionsPaysOneLatency) {
  std::string yaml = "ops:\n";
  for (int i = 0; i < 10; ++i) yaml += "  - {name: v" + std::to_string(i) + ", engine: vector, kind: tensor_copy, free: 512}\n";
  auto run = simulate_yaml(yaml, trn3_unthrottled());
  // Ten 106667 ps intervals back to back, the last written 308333 ps after its interval: 1066670 + 308333.
  EXPECT_EQ(run->start("v9"), 9 * 106667);
  EXPECT_EQ(run->end("v9"), 10 * 106667 + 308333);
  EXPECT_EQ(run->result.total_ps, 1375003);
  EXPECT_EQ(run->result.engines[int(Engine::vector)].instructions, 10u);
}

TEST(EngineTiming, ScalarLoadsItsActivationTableWhenTheFunctionChanges) {
  auto run = simulate_yaml(R"(
ops:
  - {name: e1, engine: scalar, kind: activation, free: 128, func: exp}
  - {name: e2, engine: scalar, kind: activation, free: 128, func: exp}
  - {name: g, engine: scalar, kind: activation, free: 128, func: gelu}
)", trn3_unthrottled());
  const Picoseconds table = 1308333;  // 1570 cycles / 1.2 GHz = 1308333.3
  const Picoseconds exp128 = run->end("e2") - run->start("e2") - 308333;  // the interval of a 128-element exp
  // e1 is the first exp: its interval includes the table load; e2 uses the same table and pays none.
  EXPECT_EQ(run->end("e1") - run->start("e1"), table + exp128 + 308333);
  EXPECT_EQ(run->start("e2"), table + exp128);
  // gelu is in another table (instruction_set.cpp): a second load.
  EXPECT_EQ(run->end("g") - run->start("g") - 308333, table + exp128);
}

TEST(EngineTiming, PsumBankContentionDelaysTheSecondGroupUntilRelease) {
  auto run = simulate_yaml(R"(
ops:
  - {name: mm1, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: mm2, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: cp1, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm1], releases_psum_bank: 0}
  - {name: cp2, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm2], releases_psum_bank: 0}
)", trn3_unthrottled());
  // mm1 written at 226667 + 53333 = 280000; cp1 from 330000 (semaphore) for 426667 + 308333: 1065000.
  EXPECT_EQ(run->end("cp1"), 1065000);
  // mm2's group needs bank 0, held by mm1's group until cp1 has read it: 1065000 to 1345000.
  EXPECT_EQ(run->start("mm2"), 1065000);
  EXPECT_EQ(run->bound("mm2"), "psum:cp1");
  EXPECT_EQ(run->end("mm2"), 1345000);
  // cp2: 1345000 + 50000 = 1395000, + 735000 = 2130000.
  EXPECT_EQ(run->end("cp2"), 2130000);
  const CriticalPath& cp = run->result.critical_path;
  EXPECT_EQ(cp.ops.size(), 4u);  // mm1 -> cp1 -> mm2 -> cp2
  EXPECT_EQ(cp.wait_ps, 2130000 - 2 * 280000 - 2 * 735000);  // = 100000, two semaphore hops
  EXPECT_EQ(run->result.psum_peak_banks, 1u);
}

// An engine tells a release op's end when it dispatches it (the end is known then): the bank stays held until
// that time even for a group that asks after the dispatch, and the peak counts it as held meanwhile.
TEST(EngineTiming, AReleaseToldAtDispatchHoldsTheBankUntilItsResultIsWritten) {
  auto run = simulate_yaml(R"(
ops:
  - {name: mm1, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: cp1, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm1], releases_psum_bank: 0}
  - {name: late, engine: gpsimd, duration_ns: 400}
  - {name: mm3, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 1, deps: [late]}
  - {name: mm2, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0, deps: [late]}
  - {name: cp3, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm3], releases_psum_bank: 1}
  - {name: cp2, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm2], releases_psum_bank: 0}
)", trn3_unthrottled());
  // As in the test above, cp1 is dispatched at 330000 and written at 1065000. `late` (a given time, no latency)
  // ends at 400000; mm3 and mm2 are ready 50000 later (semaphore): 450000, after cp1's dispatch.
  EXPECT_EQ(run->start("cp1"), 330000);
  EXPECT_EQ(run->end("cp1"), 1065000);
  // mm3 takes free bank 1 at 450000 (interval 226667) while bank 0 is still held: two banks at once.
  EXPECT_EQ(run->start("mm3"), 450000);
  EXPECT_EQ(run->result.psum_peak_banks, 2u);
  // mm2 asks for bank 0 at 676667 (mm3's interval over): cp1's release is told but not yet come, so it waits
  // for 1065000.
  EXPECT_EQ(run->start("mm2"), 1065000);
  EXPECT_EQ(run->bound("mm2"), "psum:cp1");
}

TEST(EngineTiming, GroupsOnDifferentBanksOverlap) {
  auto run = simulate_yaml(R"(
ops:
  - {name: mm1, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: mm2, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 1}
  - {name: cp1, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm1], releases_psum_bank: 0}
  - {name: cp2, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm2], releases_psum_bank: 1}
)", trn3_unthrottled());
  EXPECT_EQ(run->start("mm2"), 226667);  // straight after mm1: its bank is free
  EXPECT_EQ(run->bound("mm2"), "queue:mm1");
  EXPECT_EQ(run->result.psum_peak_banks, 2u);
}

TEST(EngineTiming, PsumDeadlockIsASimulationError) {
  // mm2 waits for bank 0, whose release r1 sits behind mm2 in the same tensor queue.
  EXPECT_THROW(simulate_yaml(R"(
ops:
  - {name: mm1, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0}
  - {name: mm2, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 0, psum_group: other}
  - {name: r1, engine: tensor, duration_ns: 10, deps: [mm1], releases_psum_bank: 0}
  - {name: r2, engine: tensor, duration_ns: 10, deps: [mm2], releases_psum_bank: 0}
)", trn3_unthrottled()), SimulationError);
}

TEST(EngineTiming, SbufOverflowNamesTheLiveBuffers) {
  try {
    simulate_yaml(R"(
buffers:
  - {name: big_a, bytes_per_partition: 200000}
  - {name: big_b, bytes_per_partition: 200000}
ops:
  - {name: a, engine: vector, duration_ns: 10, buffers: [big_a]}
  - {name: b, engine: scalar, duration_ns: 10, buffers: [big_b]}
)", trn3_unthrottled());
    FAIL() << "expected an SBUF overflow";
  } catch (const InputError& e) {
    // 400000 bytes per partition live at t = 0 > 262144 - 16648 = 245496 usable.
    // The message starts at the buffer whose allocation passed the capacity (big_b, line 4 of the text) and
    // names where each live buffer is declared.
    EXPECT_THAT(e.what(), testing::HasSubstr("test.yaml:4: buffer 'big_b': SBUF overflow on core 0"));
    EXPECT_THAT(e.what(), testing::HasSubstr("test.yaml:3: buffer 'big_a' (200000)"));
    EXPECT_THAT(e.what(), testing::HasSubstr("test.yaml:4: buffer 'big_b' (200000)"));
  }
}

TEST(EngineTiming, SbufPeakCountsOverlappingLifetimesOnly) {
  auto run = simulate_yaml(R"(
buffers:
  - {name: x, bytes_per_partition: 1000}
  - {name: y, bytes_per_partition: 3000, partitions: 64}
  - {name: z, bytes_per_partition: 500}
ops:
  - {name: a, engine: vector, duration_ns: 10, buffers: [x]}
  - {name: b, engine: vector, duration_ns: 10, buffers: [y]}
  - {name: c, engine: vector, duration_ns: 10, buffers: [y, z]}
)", trn3_unthrottled());
  // x lives 0-10 ns, y 10-30, z 20-30: x ends as y starts, so the peak is y + z = 3500 bytes per partition,
  // 3000 x 64 + 500 x 128 = 256000 bytes in all.
  EXPECT_EQ(run->result.sbuf_peak_bytes_per_partition, 3500u);
  EXPECT_EQ(run->result.sbuf_peak_bytes, 256000u);
}

TEST(EngineTiming, KernelMeasuredActivityEqualsTheMergedUnions) {
  // The kernel measures each engine's active time as it runs (sim/run/activity_meter.hpp); summarizing the
  // same timings without it merges each engine's queues by start time. Both must give the same lengths, on a
  // graph where 32 DMA queues on two cores overlap and every engine kind runs.
  HardwareConfig hw = trn3();
  ScheduleGraph g = random_dag(20000, 2, 11);
  SimResult measured = simulate(g, hw);
  SimResult merged;
  merged.ops = measured.ops;
  summarize_activity(g, hw, merged);
  for (int e = 0; e < kEngineCount; ++e) {
    EXPECT_EQ(measured.engines[e].active_ps, merged.engines[e].active_ps) << engine_name(Engine(e));
    EXPECT_EQ(measured.engines[e].active_sum_ps, merged.engines[e].active_sum_ps) << engine_name(Engine(e));
    for (std::uint32_t c = 0; c < hw.lnc; ++c)
      EXPECT_EQ(measured.per_core[c][e].active_ps, merged.per_core[c][e].active_ps) << engine_name(Engine(e)) << c;
  }
  EXPECT_EQ(measured.dma_active_ps, merged.dma_active_ps);
  // Overlapping queues: the union is less than the per-core sum, and not nothing.
  EXPECT_GT(measured.dma_active_ps, 0);
  EXPECT_LT(measured.dma_active_ps, measured.engines[static_cast<int>(Engine::dma)].active_sum_ps);
}

TEST(EngineTiming, SimulationIsDeterministic) {
  HardwareConfig hw = trn3_unthrottled();
  ScheduleGraph g = random_dag(5000, 2, 7);
  SimResult r1 = simulate(g, hw);
  SimResult r2 = simulate(g, hw);
  ASSERT_EQ(r1.ops.size(), r2.ops.size());
  for (std::size_t i = 0; i < r1.ops.size(); ++i) {
    ASSERT_EQ(r1.ops[i].start_ps, r2.ops[i].start_ps) << i;
    ASSERT_EQ(r1.ops[i].end_ps, r2.ops[i].end_ps) << i;
    ASSERT_EQ(r1.ops[i].bound_op, r2.ops[i].bound_op) << i;
  }
  EXPECT_EQ(r1.total_ps, r2.total_ps);
  EXPECT_GT(r1.total_ps, 0);
  // Every op ran after what bound it: a dependency or a PSUM release had finished (its result written); the
  // op before it in its queue had started (its interval, not its latency, is what holds the queue).
  for (std::size_t i = 0; i < r1.ops.size(); ++i) {
    ASSERT_GE(r1.ops[i].end_ps, r1.ops[i].start_ps);
    if (r1.ops[i].bound == BoundKind::queue) {
      ASSERT_LE(r1.ops[r1.ops[i].bound_op].start_ps, r1.ops[i].start_ps) << i;
    } else if (r1.ops[i].bound != BoundKind::start) {
      ASSERT_LE(r1.ops[r1.ops[i].bound_op].end_ps, r1.ops[i].start_ps) << i;
    }
  }
}

// The random DAG's generator draws exactly what std::mt19937_64 draws: over several refills of its state, for
// the bench's default seed and others (a different sequence would be a different benchmark graph).
TEST(EngineTiming, RandomDagGeneratorMatchesTheLibraryMersenneTwister) {
  for (std::uint64_t seed : {0ULL, 1ULL, 2ULL, 7ULL, 0xFFFFFFFFFFFFFFFFULL}) {
    std::mt19937_64 library(seed);
    Mt19937_64 ours(seed);
    for (int i = 0; i < 5000; ++i) ASSERT_EQ(ours(), library()) << "seed " << seed << ", draw " << i;
  }
}

}  // namespace
}  // namespace stasim::test
