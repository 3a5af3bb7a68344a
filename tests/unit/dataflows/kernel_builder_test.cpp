// KernelBuilder's calls for the fidelity attributes: gather shapes and descriptor-generation modes land on the
// ops as the builders pass them; a software-DGE transfer brings its GpSimd descriptor op.
#include <gtest/gtest.h>

#include "dataflows/kernel_builder.hpp"
#include "decode_fixture.hpp"

namespace stasim {
namespace {

TEST(KernelBuilder, SoftwareDgeTransferWaitsForItsGpSimdDescriptorOp) {
  HardwareConfig hw = test::shipped_hw();
  ScheduleGraph g;
  KernelBuilder b(g, hw, 4);
  b.set_prefix("L0.");
  OpId topk = b.compute(Engine::vector, OpKind::tensor_copy, 1, 8, 1, {}, "router", "topk");
  OpId w = b.dma(1, 96 * 1024, 128, Location::hbm, Location::sbuf, {topk}, "gather", "e0.load_J", -1, 0, 192,
                 DgeMode::swdge);
  OpId gen = b.descriptor_op();
  ASSERT_NE(gen, kNoOp);
  EXPECT_EQ(g.name(gen), "L0.e0.load_J.dge");
  EXPECT_EQ(g.op(gen).engine, Engine::gpsimd);
  EXPECT_EQ(g.op(gen).kind, OpKind::descriptors);
  EXPECT_EQ(g.op(gen).core, 1);
  EXPECT_EQ(g.phases()[g.op(gen).phase], "gather");
  // Same shape as its transfer: 128 partitions x 768 bytes in 192-byte runs = 512 descriptors.
  EXPECT_EQ(g.op(gen).bytes, 96u * 1024);
  EXPECT_EQ(g.op(gen).contiguous_bytes, 192u);
  EXPECT_EQ(g.op(w).dge, DgeMode::swdge);
  // topk -> descriptors -> transfer.
  ASSERT_EQ(g.in_degree(gen), 1u);
  EXPECT_EQ(g.source(*g.in_edges(gen).begin()), topk);
  ASSERT_EQ(g.in_degree(w), 1u);
  EXPECT_EQ(g.source(*g.in_edges(w).begin()), gen);
  // Other modes add nothing.
  OpId h = b.dma(1, 4096, 128, Location::hbm, Location::sbuf, {topk}, "down", "e0.load_down", -1, 0, 0, DgeMode::hwdge);
  EXPECT_EQ(b.descriptor_op(), kNoOp);
  EXPECT_EQ(g.op(h).dge, DgeMode::hwdge);
  EXPECT_EQ(g.size(), 4u);
  EXPECT_NO_THROW(validate_graph(g, hw));
}

TEST(KernelBuilder, GatherCarriesItsIsaShape) {
  HardwareConfig hw = test::shipped_hw();
  ScheduleGraph g;
  KernelBuilder b(g, hw, 4);
  OpId x = b.gather(0, 1536, 128, 1, 1, {}, "gather", "up.gather");
  const Op& op = g.op(x);
  EXPECT_EQ(op.engine, Engine::gpsimd);
  EXPECT_EQ(op.kind, OpKind::gather);
  EXPECT_EQ(op.free, 1536u);
  EXPECT_EQ(op.partitions, 128u);
  EXPECT_EQ(op.elements_per_index, 1);
  EXPECT_EQ(op.index_bytes, 1);
  EXPECT_EQ(op.dtype, Dtype::bf16);
  EXPECT_NO_THROW(validate_graph(g, hw));
}

}  // namespace
}  // namespace stasim
