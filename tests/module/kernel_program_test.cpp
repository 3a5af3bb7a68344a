// Kernels as programs (kernels/kernel_program.hpp) through the SystemC kernel: dependencies from the tiles an
// instruction reads and writes, rotating buffers, DMA queues by trigger engine, SBUF capacity, and the shipped
// tutorial kernels sliced. trn3: DMA issue 900 ns, 2.58 ns per descriptor, completion 290 ns, semaphore 50 ns;
// ScalarE 1.2 GHz, a result written 370 cycles (308333 ps) after its interval, a table load 1570 cycles.
#include <gmock/gmock.h>

#include "kernels/kernel_program.hpp"
#include "kernels/shipped_kernels.hpp"
#include "schedule_fixture.hpp"
#include "sim/core/input_error.hpp"

namespace stasim::test {
namespace {

struct Timed {
  const KernelProgram& k;
  SimResult r;
  OpId id(const std::string& name) const {
    for (OpId v = 0; v < k.graph().size(); ++v)
      if (k.graph().name(v) == name) return v;
    ADD_FAILURE() << "no op " << name;
    return 0;
  }
  Picoseconds start(const std::string& n) const { return r.ops[id(n)].start_ps; }
  Picoseconds end(const std::string& n) const { return r.ops[id(n)].end_ps; }
  // The ops `n` depends on, in the order its edges were added.
  std::vector<OpId> deps(const std::string& n) const {
    std::vector<OpId> out;
    for (auto e : k.graph().in_edges(id(n))) out.push_back(k.graph().source(e));
    return out;
  }
};

InstructionOptions named(const std::string& name) {
  InstructionOptions o;
  o.name = name;
  return o;
}

TEST(KernelProgram, LoadActivateStoreFollowTheirTiles) {
  KernelProgram k(trn3(), "exp");
  const HbmTensor x = k.hbm("x", 128, 512, Dtype::bf16), y = k.hbm("y", 128, 512, Dtype::bf16);
  const TileBlock in = k.sbuf("in", 128, 512, Dtype::bf16), out = k.sbuf("out", 128, 512, Dtype::bf16);
  k.load(in.all(), slice(x, 0, 128, 0, 512), DmaIssuer::sync, named("load"));
  k.activation(out.all(), in.all(), "exp", named("act"));
  k.store(slice(y, 0, 128, 0, 512), out.all(), DmaIssuer::pool, named("store"));
  Timed t{k, k.simulate()};
  // load: [128, 512] BF16 = 1 KiB per partition, one descriptor each: 128 x 2.58 = 330.24 ns of descriptor
  // processing, more than its 131072 / 0.528 = 248.2 ns of bytes: 900 + 330.24 = 1230.24 ns.
  EXPECT_EQ(t.end("load"), 1230240);
  // act reads `in`: 290 ns after the load's last byte; its interval is the exp table's load (1570 cycles =
  // 1308.333 ns) and max(64, 512) = 512 cycles (426.667 ns), its result 308.333 ns later: 1520.24 + 2043.333.
  EXPECT_EQ(t.start("act"), 1520240);
  EXPECT_EQ(t.end("act"), 1520240 + 1308333 + 426667 + 308333);
  // store reads `out`: + 50 ns semaphore, 900 ns issue, 330.24 ns of descriptors: 3563573 + 1280240.
  EXPECT_EQ(t.end("store"), 3563573 + 50000 + 900000 + 330240);
  // Queues by trigger engine: the load on the Sync engine's (0), the store on GpSimd's (2).
  EXPECT_EQ(k.graph().op(t.id("load")).queue, 0);
  EXPECT_EQ(k.graph().op(t.id("store")).queue, 2);
  EXPECT_EQ(t.deps("act"), std::vector<OpId>{t.id("load")});
  EXPECT_EQ(t.deps("store"), std::vector<OpId>{t.id("act")});
}

// Two iterations of load -> activate, the input tile allocated inside the loop with `bufs` rotating buffers.
Timed two_iterations(KernelProgram& k, std::uint32_t bufs) {
  const HbmTensor x = k.hbm("x", 256, 512, Dtype::bf16);
  for (int i = 0; i < 2; ++i) {
    const TileBlock in = k.sbuf("in", 128, 512, Dtype::bf16, 1, bufs);
    const TileBlock out = k.sbuf("out", 128, 512, Dtype::bf16, 1, 2);
    k.load(in.all(), slice(x, 128 * i, 128, 0, 512), DmaIssuer::sync, named("load" + std::to_string(i)));
    k.activation(out.all(), in.all(), "exp", named("act" + std::to_string(i)));
  }
  return Timed{k, k.simulate()};
}

TEST(KernelProgram, OneBufferMakesTheNextLoadWaitForItsReaderTwoDoNot) {
  KernelProgram one(trn3(), "one");
  Timed a = two_iterations(one, 1);
  // One buffer: load1 overwrites what load0 wrote (write after write) and act0 reads (write after read): it
  // waits for act0's result, 3563573 ps, + 50 ns semaphore, then its issue and descriptors: 3613573 + 1230240.
  EXPECT_EQ(a.deps("load1"), (std::vector<OpId>{a.id("load0"), a.id("act0")}));
  EXPECT_EQ(a.start("load1"), 3613573);
  EXPECT_EQ(a.end("load1"), 3613573 + 1230240);
  KernelProgram two(trn3(), "two");
  Timed b = two_iterations(two, 2);
  // Two buffers: no dependency; load1 is dispatched when load0's issue is over (depth 2), 900 ns; its own issue
  // ends at 1800 ns (load0's bytes were done at 1230.24), then its 330.24 ns of descriptors: 2130240.
  EXPECT_TRUE(b.deps("load1").empty());
  EXPECT_EQ(b.start("load1"), 900000);
  EXPECT_EQ(b.end("load1"), 2130240);
}

TEST(KernelProgram, AccumulatingMatmulsChainOnlyThroughTheEngineAndTheDrainWaitsForTheLast) {
  KernelProgram k(trn3(), "acc");
  const TileBlock a = k.sbuf("a", 128, 128, Dtype::bf16, 4), b = k.sbuf("b", 128, 512, Dtype::bf16, 4);
  const TileBlock acc = k.psum("acc", 128, 512);
  const TileBlock res = k.sbuf("res", 128, 512, Dtype::bf16);
  k.instruction(Engine::gpsimd, OpKind::memset, a.all(), {}, named("zero_a"));
  k.instruction(Engine::gpsimd, OpKind::memset, b.all(), {}, named("zero_b"));
  for (int i = 0; i < 4; ++i) k.matmul(acc.all(), a.at(i), b.at(i), i > 0, named("mm" + std::to_string(i)));
  k.instruction(Engine::vector, OpKind::tensor_copy, res.all(), {acc.all()}, named("drain"));
  Timed t{k, k.simulate()};
  EXPECT_EQ(t.deps("mm0"), (std::vector<OpId>{t.id("zero_a"), t.id("zero_b")}));
  // mm1..mm3 read what the memsets wrote and accumulate after mm0 without a dependency on it.
  EXPECT_EQ(t.deps("mm3"), (std::vector<OpId>{t.id("zero_a"), t.id("zero_b")}));
  EXPECT_EQ(t.deps("drain"), std::vector<OpId>{t.id("mm3")});
  // In the tensor queue each follows the one before as soon as its interval is over.
  EXPECT_LT(t.start("mm3"), t.end("mm2"));
  EXPECT_GE(t.start("drain"), t.end("mm3"));
}

TEST(KernelProgram, BadTilesAndInstructionsAreInputErrorsNamingThem) {
  KernelProgram k(trn3(), "bad");
  // 128 x 200000 BF16 = 400000 B per partition, over trn3's 245496 usable.
  try {
    const TileBlock huge = k.sbuf("huge", 128, 200000, Dtype::bf16);
    k.instruction(Engine::gpsimd, OpKind::memset, huge.all(), {}, named("fill"));
    k.simulate();
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("huge"));
  }
  KernelProgram g(trn3(), "bad2");
  const TileBlock t = g.sbuf("t", 128, 64, Dtype::bf16);
  // A gather is GpSimd's; VectorE does not run it: the simulation refuses it, naming the op.
  g.instruction(Engine::vector, OpKind::gather, t.all(), {t.all()}, named("g"));
  try {
    g.simulate();
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("'g'"));
  }
}

// Names a program gives reach every output (the JSON writer stops at invalid UTF-8, a control character breaks a
// line), so each entry refuses them as bad input, naming the name escaped and the byte.
TEST(KernelProgram, NamesMustBePrintableUtf8) {
  auto message = [](auto&& build) {
    try {
      build();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string why = " (a name is printed in every output, so it must be printable UTF-8)";
  EXPECT_EQ(message([] { KernelProgram k(trn3(), "k\xff"); }),
            "kernel 'k\\xff': the name holds invalid UTF-8 at byte 2" + why);
  KernelProgram k(trn3(), "ok");
  EXPECT_EQ(message([&] { k.hbm("x\x1b[2J", 128, 512, Dtype::bf16); }),
            "HBM tensor 'x\\x1b[2J': the name holds a control character (0x1b) at byte 2" + why);
  EXPECT_EQ(message([&] { k.sbuf("in\xc2\x85", 128, 512, Dtype::bf16); }),
            "SBUF tile 'in\\xc2\\x85': the name holds a control character (U+0085) at byte 3" + why);
  EXPECT_EQ(message([&] { k.psum("p\xed\xa0\x80", 128, 512); }),
            "PSUM tile 'p\\xed\\xa0\\x80': the name holds invalid UTF-8 at byte 2" + why);
  const TileBlock t = k.sbuf("t", 128, 64, Dtype::bf16);
  EXPECT_EQ(message([&] { k.instruction(Engine::gpsimd, OpKind::memset, t.all(), {}, named("fill\n")); }),
            "instruction 'fill\\x0a': the name holds a control character (0x0a) at byte 5" + why);
  InstructionOptions phased = named("fill");
  phased.phase = "act\x7f";
  EXPECT_EQ(message([&] { k.instruction(Engine::gpsimd, OpKind::memset, t.all(), {}, phased); }),
            "phase 'act\\x7f': the name holds a control character (0x7f) at byte 4" + why);
  // Valid UTF-8 beyond ASCII is a name like any other.
  EXPECT_EQ(message([&] { k.instruction(Engine::gpsimd, OpKind::memset, t.all(), {}, named("füll")); }), "no error");
  EXPECT_EQ(k.ops(), 1u);
}

// A kernel sliced to 1/16 of its M and scaled back predicts the full size within 3% (no lock-step or
// start-up artefact grows or shrinks with the size): full 4096 x 8192 x 8192 against M = 256, on trn1.
TEST(KernelProgram, ATutorialKernelSlicedToASixteenthScalesBackWithinThreePercent) {
  const HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn1.yaml");
  for (const char* name : {"matmul-tiled", "matmul-hoist-load", "matmul-block-free"}) {
    const ShippedKernel& shipped = shipped_kernel(name);
    auto total = [&](std::int64_t M) {
      KernelProgram k(hw, name);
      shipped.build(k, kernel_args(shipped, {{"M", M}}));
      return static_cast<double>(k.simulate().total_ps);
    };
    EXPECT_NEAR(16 * total(256) / total(4096), 1.0, 0.03) << name;
  }
}

}  // namespace
}  // namespace stasim::test
