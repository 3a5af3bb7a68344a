// Hand-written schedule loading and graph validation: every bad input gives one clear message naming the file,
// line and key or op. No kernel runs here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/core/graph_validation.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/schedule_yaml.hpp"

namespace stasim {
namespace {

using testing::HasSubstr;

HardwareConfig trn3() { return load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"); }

std::string problem_of(const std::string& yaml) {
  try {
    LoadedSchedule s = read_schedule(parse_yaml_text(yaml, "s.yaml"), "s.yaml");
    validate_graph(s.graph, trn3(), s.locator());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// in_degrees counts each op's dependencies from the edge table, the same as in_degree(v) from the in-edge
// lists: a (none), b (a), c (a, b) and d listed before its dependency c (a backward edge): 0, 1, 2, 1.
TEST(ScheduleGraphEdges, InDegreesCountEachOpsDependencies) {
  LoadedSchedule s = read_schedule(parse_yaml_text(R"(
ops:
  - {name: a, engine: vector, kind: tensor_copy, free: 8}
  - {name: d, engine: scalar, kind: activation, free: 8, deps: [c]}
  - {name: b, engine: vector, kind: tensor_copy, free: 8, deps: [a]}
  - {name: c, engine: gpsimd, kind: iota, free: 8, deps: [a, b]}
)", "s.yaml"), "s.yaml");
  std::vector<std::uint32_t> degrees{7, 7};  // replaced, not appended to
  s.graph.in_degrees(degrees);
  EXPECT_EQ(degrees, (std::vector<std::uint32_t>{0, 1, 1, 2}));  // ids in file order: a, d, b, c
  for (OpId v = 0; v < s.graph.size(); ++v) EXPECT_EQ(degrees[v], s.graph.in_degree(v)) << v;
}

TEST(ScheduleYaml, ReadsOpsQueuesGroupsAndBuffers) {
  LoadedSchedule s = read_schedule(parse_yaml_text(R"(
buffers:
  - {name: w, bytes_per_partition: 1024}
ops:
  - {name: load, engine: dma, queue: 2, bytes: 4096, buffers: [w]}
  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, deps: [load], psum_bank: 3, phase: gate_up}
  - {name: cp, engine: vector, kind: tensor_copy, free: 64, deps: [mm], releases_psum_bank: 3}
)", "s.yaml"), "s.yaml");
  const ScheduleGraph& g = s.graph;
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g.op(0).kind, OpKind::transfer);
  EXPECT_EQ(g.op(0).queue, 2);
  EXPECT_EQ(g.op(1).kind, OpKind::matmul);  // the tensor engine's default kind
  EXPECT_EQ(g.phases()[g.op(1).phase], "gate_up");
  ASSERT_EQ(g.psum_groups().size(), 1u);
  EXPECT_EQ(g.psum_groups()[0].name, "mm");   // psum_group defaults to the op's name
  EXPECT_EQ(g.psum_groups()[0].release_op, 2u);
  EXPECT_EQ(g.buffer_uses().size(), 1u);
  EXPECT_EQ(s.op_lines[1], 6);
  EXPECT_NO_THROW(validate_graph(g, trn3(), s.locator()));
}

TEST(ScheduleYaml, UnknownKeysEnginesKindsAndDepsGetSuggestions) {
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: tensr, duration_ns: 5}\n"),
              HasSubstr("s.yaml:2:15: ops[0].engine: unknown engine 'tensr' (did you mean 'tensor'?)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, kind: tensor_cpy, free: 4}\n"),
              HasSubstr("ops[0].kind: unknown kind 'tensor_cpy' (did you mean 'tensor_copy'?)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, duration_ns: 5, depz: [b]}\n"),
              HasSubstr("ops[0].depz: unknown key (did you mean 'ops[0].deps'?)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: load, engine: dma, bytes: 8}\n  - {name: b, engine: vector, duration_ns: 5, deps: [lod]}\n"),
              HasSubstr("s.yaml:3: op 'b': deps: unknown op 'lod' (did you mean 'load'?)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, duration_ns: 5}\n  - {name: a, engine: vector, duration_ns: 5}\n"),
              HasSubstr("op name 'a' is used twice"));
}

TEST(ScheduleYaml, WrongTypesAndNonPositiveSizes) {
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: dma, bytes: lots}\n"),
              HasSubstr("ops[0].bytes: expected a non-negative integer, got 'lots'"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: dma, bytes: 0}\n"),
              HasSubstr("s.yaml:2: op 'a': a DMA transfer needs positive bytes"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: dma, bytes: -4}\n"),
              HasSubstr("ops[0].bytes: expected a non-negative integer, got '-4'"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, kind: tensor_copy}\n"),
              HasSubstr("op 'a': tensor_copy needs a positive free size"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, duration_ns: 0}\n"),
              HasSubstr("ops[0].duration_ns: must be positive"));
  EXPECT_THAT(problem_of("ops: {a: 1}\n"), HasSubstr("ops: expected a list, got a mapping"));
  EXPECT_THAT(problem_of("opz: []\n"), HasSubstr("missing required list 'ops'"));
}

TEST(ScheduleYaml, DescriptorGenerationModes) {
  LoadedSchedule s = read_schedule(parse_yaml_text(R"(
ops:
  - {name: idx, engine: vector, duration_ns: 5}
  - {name: w, engine: dma, bytes: 4096, dge: swdge, deps: [idx], phase: gate_up}
  - {name: h, engine: dma, bytes: 4096, dge: hwdge}
  - {name: s, engine: dma, bytes: 4096}
)", "s.yaml"), "s.yaml");
  const ScheduleGraph& g = s.graph;
  // The swdge transfer brings its GpSimd descriptor op, listed (and queued) just before it.
  ASSERT_EQ(g.size(), 5u);
  const Op& gen = g.op(1);
  EXPECT_EQ(g.name(1), "w.dge");
  EXPECT_EQ(gen.engine, Engine::gpsimd);
  EXPECT_EQ(gen.kind, OpKind::descriptors);
  EXPECT_EQ(gen.bytes, 4096u);
  EXPECT_EQ(g.phases()[gen.phase], "gate_up");
  EXPECT_EQ(g.op(2).dge, DgeMode::swdge);
  EXPECT_EQ(g.op(3).dge, DgeMode::hwdge);
  EXPECT_EQ(g.op(4).dge, DgeMode::static_);  // the default
  // The transfer's dependencies move to the descriptor op; the transfer waits for the descriptors.
  ASSERT_EQ(g.in_degree(1), 1u);
  EXPECT_EQ(g.source(*g.in_edges(1).begin()), 0u);
  ASSERT_EQ(g.in_degree(2), 1u);
  EXPECT_EQ(g.source(*g.in_edges(2).begin()), 1u);
  EXPECT_EQ(s.op_lines[1], 4);  // messages about the descriptor op point at its transfer's line
  EXPECT_NO_THROW(validate_graph(g, trn3(), s.locator()));
}

TEST(ScheduleYaml, BadDescriptorModesAndGatherShapes) {
  EXPECT_THAT(problem_of("ops:\n  - {name: w, engine: dma, bytes: 64, dge: swdeg}\n"),
              HasSubstr("s.yaml:2:39: ops[0].dge: unknown descriptor-generation mode 'swdeg' (did you mean 'swdge'?)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, kind: tensor_copy, free: 8, dge: hwdge}\n"),
              HasSubstr("ops[0].dge: only DMA transfers have a descriptor-generation mode"));
  EXPECT_THAT(problem_of("ops:\n  - {name: g, engine: gpsimd, kind: gather, free: 8, elements_per_index: 16}\n"),
              HasSubstr("s.yaml:2: op 'g': elements_per_index = 16 must be between 1 and the 8 elements gathered per partition (free)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: g, engine: gpsimd, kind: gather, free: 8, index_bytes: 3}\n"),
              HasSubstr("ops[0].index_bytes: must be 1, 2 or 4"));
  EXPECT_THAT(problem_of("ops:\n  - {name: g, engine: gpsimd, kind: iota, free: 8, elements_per_index: 2}\n"),
              HasSubstr("ops[0].elements_per_index: only gather ops have it"));
  EXPECT_THAT(problem_of("ops:\n  - {name: w.dge, engine: vector, duration_ns: 5}\n  - {name: w, engine: dma, bytes: 64, dge: swdge}\n"),
              HasSubstr("op name 'w.dge' is taken (the swdge descriptor op of 'w')"));
  // NC-v2 has no hardware DGE block.
  try {
    LoadedSchedule s = read_schedule(parse_yaml_text("ops:\n  - {name: w, engine: dma, bytes: 64, dge: hwdge}\n", "s.yaml"), "s.yaml");
    validate_graph(s.graph, load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn1.yaml"), s.locator());
    ADD_FAILURE() << "hwdge on trn1 was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("s.yaml:2: op 'w': dge = hwdge needs a hardware descriptor-generation engine; trn1 has "
                                    "none (core.dma.hwdge_instances = 0): use swdge or static"));
  }
}

TEST(GraphValidation, MissingCoresEnginesQueuesAndTileLimits) {
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, core: 2, duration_ns: 5}\n"),
              HasSubstr("op 'a': core 2 does not exist: trn3 simulates lnc = 2 physical core(s), numbered 0..1"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: dma, queue: 16, bytes: 8}\n"),
              HasSubstr("op 'a': DMA queue 16 does not exist (16 queues per core)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: vector, kind: matmul, k: 1, m: 1, n: 1}\n"),
              HasSubstr("the vector engine cannot run 'matmul'"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: tensor, k: 256, m: 128, n: 512}\n"),
              HasSubstr("k = 256 exceeds the contraction limit 128 for bf16"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: tensor, k: 128, m: 128, n: 1024}\n"),
              HasSubstr("n = 1024 exceeds the moving free limit 512"));
  EXPECT_THAT(problem_of("ops:\n  - {name: a, engine: dma, bytes: 8, dst: core5, src: sbuf}\n"),
              HasSubstr("peer core 5 is not another simulated core"));
}

TEST(GraphValidation, PsumProblems) {
  EXPECT_THAT(problem_of("ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 8}\n"),
              HasSubstr("psum_bank 8 does not exist (8 banks)"));
  EXPECT_THAT(problem_of("ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 0}\n"),
              HasSubstr("s.yaml:2: op 'mm': PSUM group 'mm' on bank 0 is never released"));
  EXPECT_THAT(problem_of("ops:\n  - {name: cp, engine: vector, duration_ns: 5, releases_psum_bank: 1}\n"),
              HasSubstr("no PSUM group is open on bank 1 of core 0"));
  // The release does not wait for the matmul: the bank could be freed under it.
  EXPECT_THAT(problem_of("ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 0}\n"
                         "  - {name: cp, engine: vector, duration_ns: 5, releases_psum_bank: 0}\n"),
              HasSubstr("op 'cp': releases PSUM bank 0 of group 'mm' but does not wait for its op 'mm'"));
}

// A release may wait for its group's last op through other ops or its queue's program order. Validation takes
// ids as the execution order when every dependency points forward and sorts the graph when one points back
// (here 'x' waits for 'y', made after it); both forms accept the indirect waits and report the missing one.
TEST(GraphValidation, PsumReleaseWaitsThroughOtherOpsOrProgramOrder) {
  const std::string chain = "ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 0}\n"
                            "  - {name: v, engine: scalar, duration_ns: 5, deps: [mm]}\n";
  // mm -> v -> cp (dependencies) and mm -> w -(vector queue)-> cp (program order).
  EXPECT_EQ(problem_of(chain + "  - {name: cp, engine: vector, duration_ns: 5, deps: [v], releases_psum_bank: 0}\n"),
            "(no error)");
  EXPECT_EQ(problem_of(chain + "  - {name: w, engine: vector, duration_ns: 5, deps: [mm]}\n"
                               "  - {name: cp, engine: vector, duration_ns: 5, releases_psum_bank: 0}\n"),
            "(no error)");
  const std::string backward = "ops:\n  - {name: x, engine: gpsimd, duration_ns: 5, deps: [y]}\n"
                               "  - {name: y, engine: scalar, duration_ns: 5}\n";
  EXPECT_EQ(problem_of(backward + chain.substr(5) +
                       "  - {name: cp, engine: vector, duration_ns: 5, deps: [v], releases_psum_bank: 0}\n"),
            "(no error)");
  EXPECT_THAT(problem_of(backward + chain.substr(5) +
                         "  - {name: cp, engine: vector, duration_ns: 5, deps: [y], releases_psum_bank: 0}\n"),
              HasSubstr("op 'cp': releases PSUM bank 0 of group 'mm' but does not wait for its op 'mm'"));
}

TEST(GraphValidation, CyclesAreNamedOpByOp) {
  std::string e = problem_of(R"(ops:
  - {name: a, engine: vector, duration_ns: 5, deps: [c]}
  - {name: b, engine: scalar, duration_ns: 5, deps: [a]}
  - {name: c, engine: tensor, duration_ns: 5, deps: [b]}
)");
  EXPECT_THAT(e, HasSubstr("dependency cycle: "));
  EXPECT_THAT(e, HasSubstr("'a' -> 'b' -> 'c' -> 'a'"));
}

TEST(GraphValidation, WaitingOnALaterOpOfTheSameQueueIsReported) {
  std::string e = problem_of(R"(ops:
  - {name: first, engine: vector, duration_ns: 5, deps: [second]}
  - {name: second, engine: vector, duration_ns: 5}
)");
  EXPECT_THAT(e, HasSubstr("s.yaml:2: op 'first': depends on 'second', which comes later in the same vector queue"));
}

TEST(GraphValidation, CycleThroughProgramOrderIsNamed) {
  // x (vector) waits for y (scalar); y waits for z, which sits behind x in the vector queue.
  std::string e = problem_of(R"(ops:
  - {name: x, engine: vector, duration_ns: 5, deps: [y]}
  - {name: z, engine: vector, duration_ns: 5}
  - {name: y, engine: scalar, duration_ns: 5, deps: [z]}
)");
  EXPECT_THAT(e, HasSubstr("'x' -(queue order)-> 'z' -> 'y' -> 'x'"));
}

TEST(GraphValidation, BuffersThatCannotFit) {
  EXPECT_THAT(problem_of("buffers:\n  - {name: huge, bytes_per_partition: 300000}\nops:\n  - {name: a, engine: vector, duration_ns: 5, buffers: [huge]}\n"),
              HasSubstr("buffer 'huge': 300000 bytes per partition do not fit SBUF (245496 usable bytes per partition)"));
  EXPECT_THAT(problem_of("buffers:\n  - {name: acc, bytes_per_partition: 20000, space: psum}\nops:\n  - {name: a, engine: vector, duration_ns: 5, buffers: [acc]}\n"),
              HasSubstr("buffer 'acc': 20000 bytes per partition do not fit PSUM (16384 usable bytes per partition)"));
  EXPECT_THAT(problem_of("buffers:\n  - {name: b, bytes_per_partition: 8}\nops:\n  - {name: a, engine: vector, duration_ns: 5, buffers: [c]}\n"),
              HasSubstr("buffers: unknown buffer 'c'"));
}

}  // namespace
}  // namespace stasim
