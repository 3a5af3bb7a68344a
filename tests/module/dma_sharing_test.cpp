// DMA timing through the SystemC kernel (docs/hardware-model.md DMA; memory/dma_queue_model.hpp): each queue's
// issue stage (one dispatch at a time, overlapping the bytes of the transfers before it, at most queue_depth in
// flight), a queue's bytes in dispatch order (a descriptor ring), and fair sharing in each transfer's dominant
// resource of the per-core DMA capacity, the core's descriptor processing (each byte takes its transfer's
// descriptor time per byte) and the HBM share, with rates recomputed when transfers start and finish; the link.
// trn3: per-core DMA = 16 engines x 33 B/ns = 528 B/ns; HBM share = 4700 B/ns x lnc 2 / 8 cores = 1175 B/ns;
// issue 900 ns; 2.58 ns per descriptor; depth 2; semaphore 50 ns. Data phases round up to the picosecond.
#include "schedule_fixture.hpp"

namespace stasim::test {
namespace {

constexpr const char* kTwoLoadsSameCore = R"(
ops:
  - {name: a, engine: dma, queue: 0, bytes: 1048576}
  - {name: b, engine: dma, queue: 1, bytes: 1048576}
)";

TEST(DmaSharing, TwoConcurrentLoadsOnOneCoreSplitItsDmaEngines) {
  auto run = simulate_yaml(kTwoLoadsSameCore, trn3());
  // Two queues issue at once (900 ns each). Their 128 descriptors each (8 KiB per partition, 330.24 ns) take
  // 0.315 ps per byte: at 264 B/ns each they use 17% of the descriptor processing. Core capacity 528 B/ns binds
  // before HBM (1175): 264 B/ns each:
  // 1048576 / 0.264 = 3971878.79 ps -> 3971879 ps after 900000 = 4871879 ps.
  EXPECT_EQ(run->end("a"), 4871879);
  EXPECT_EQ(run->end("b"), 4871879);
  EXPECT_EQ(run->result.dma_active_ps, 4871879);
  EXPECT_EQ(run->result.hbm_read_bytes, 2u * 1048576u);
}

TEST(DmaSharing, LoadsOnTwoCoresEachGetTheirCoreRate) {
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576}
)", trn3());
  // Each core's 528 B/ns; together 1056 < 1175 HBM. 1048576 / 0.528 = 1985939.39 -> 1985940 ps + 900000.
  EXPECT_EQ(run->end("a"), 2885940);
  EXPECT_EQ(run->end("b"), 2885940);
}

TEST(DmaSharing, HbmShareBindsWhenItIsSmaller) {
  // HBM 1600 GB/s -> share 1600 x 2 / 8 = 400 B/ns for the two simulated cores: 200 B/ns each.
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576}
)", trn3({"device.hbm.bandwidth_gbps=1600"}));
  // 1048576 / 0.2 = 5242880 ps + 900000 = 6142880 ps.
  EXPECT_EQ(run->end("a"), 6142880);
  EXPECT_EQ(run->end("b"), 6142880);
}

TEST(DmaSharing, RatesAreRecomputedWhenATransferJoinsAndLeaves) {
  auto run = simulate_yaml(R"(
ops:
  - {name: delay, engine: vector, core: 1, duration_ns: 1000}
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576, deps: [delay]}
)", trn3({"device.hbm.bandwidth_gbps=1600"}));
  // HBM share 400 B/ns. a moves alone from 900 ns at min(528, 400) = 400 B/ns.
  // b starts at 1000 + 50 (semaphore) = 1050 ns, moves from 1950 ns; then both get 200 B/ns.
  // a by 1950: 1050 ns x 400 = 420000 B; left 628576 B / 0.2 B/ps = 3142880 ps -> a ends 5092880 ps.
  EXPECT_EQ(run->start("b"), 1050000);
  EXPECT_EQ(run->end("a"), 5092880);
  // b moved 628576 B by then, 420000 B left alone at 400 B/ns = 1050000 ps -> 6142880 ps.
  EXPECT_EQ(run->end("b"), 6142880);
}

TEST(DmaSharing, ASmallTransferPaysItsIssueAndItsDescriptors) {
  auto run = simulate_yaml(R"(
ops:
  - {name: small, engine: dma, bytes: 4096, partitions: 128}
)", trn3());
  // 32 B per partition: 128 descriptors x 2.58 ns = 330.24 ns, more than its 4096 / 0.528 = 7757.6 ps of bytes:
  // after the 900 ns issue its bytes move at the descriptors' pace, 900000 + 330240 = 1230240 ps.
  EXPECT_EQ(run->end("small"), 1230240);
  EXPECT_EQ(run->result.hbm_read_bytes, 4096u);
}

TEST(DmaSharing, ASmallTransferBesideALargeOneTakesItsShareThenLeavesTheRest) {
  auto run = simulate_yaml(R"(
ops:
  - {name: large, engine: dma, queue: 0, bytes: 4194304}
  - {name: small, engine: dma, queue: 1, bytes: 4096}
)", trn3());
  // Per byte: large 1/0.528 = 1.894 ps of the core's bandwidth and 330240 / 4194304 = 0.0787 ps of descriptor
  // processing (bandwidth dominant); small 1.894 and 330240 / 4096 = 80.625 (descriptors dominant). Equal
  // shares u of each one's dominant resource: the descriptors bind first, u (1 + 0.528 x 0.0787) = 1,
  // u = 0.96009: large 0.96009 x 0.528 = 0.50693 B/ps, small 0.96009 / 80.625 = 0.0119081 B/ps. small's
  // 4096 B take 343968.8 -> 343969 ps: 1243969.
  EXPECT_EQ(run->end("small"), 1243969);
  // large moved 0.50693 x 343969 = 174366.8 B; its other 4019937.2 B alone at 0.528 B/ps take 7613517.4 ->
  // 7613518 ps: 8857487 (not held to the small one's byte rate while they share the descriptor processing).
  EXPECT_EQ(run->end("large"), 8857487);
}

TEST(DmaSharing, ShortRunsCostDescriptorsNotBandwidth) {
  auto run = simulate_yaml(R"(
ops:
  - {name: slices, engine: dma, bytes: 1048576, contiguous_bytes: 192}
)", trn3());
  // 8192 B per partition in 192-byte runs: 43 descriptors each, 5504 x 2.58 ns = 14200.32 ns, longer than the
  // 1986 ns of bytes: after the 900 ns issue the bytes move at the descriptors' pace, 15100320 ps.
  EXPECT_EQ(run->end("slices"), 15100320);
}

TEST(DmaSharing, DescriptorProcessingIsSharedFairlyByTheCoresQueues) {
  auto run = simulate_yaml(R"(
ops:
  - {name: slices, engine: dma, queue: 0, bytes: 1048576, contiguous_bytes: 192}
  - {name: small, engine: dma, queue: 1, bytes: 4096}
  - {name: other_core, engine: dma, core: 1, bytes: 4096}
)", trn3());
  // Both bound by their descriptors, both moving from 900 ns: half the core's descriptor processing each.
  // small's 330.24 ns of descriptors take 660.48 ns: 1560480 ps.
  EXPECT_EQ(run->end("small"), 1560480);
  // slices had 330.24 of its 14200.32 ns done by then; the other 13870.08 ns alone: 1560480 + 13870080.
  EXPECT_EQ(run->end("slices"), 15430560);
  // Core 1 processes its own descriptors: 1230240 ps as alone.
  EXPECT_EQ(run->end("other_core"), 1230240);
}

TEST(DmaSharing, FewPartitionsRunOnFewEngines) {
  auto run = simulate_yaml(R"(
ops:
  - {name: rows, engine: dma, bytes: 32768, partitions: 4}
  - {name: hw, engine: dma, queue: 1, bytes: 1048576, dge: hwdge}
)", trn3());
  // DMA's A[4, 4096] BF16: 4 partitions run on one engine, 33 B/ns: 32768 / 0.033 = 992969.7 -> 992970 ps
  // after the 900 ns issue.
  EXPECT_EQ(run->end("rows"), 1892970);
  // Hardware DGE adds its 600 ns instruction to the issue: hw moves from 1500000 ps. rows keeps its one
  // engine's 0.033 B/ps until 1892970, hw takes the other 0.495: 0.495 x 392970 = 194520.15 B; the remaining
  // 854055.85 B at 0.528 B/ps take 1617530.02 -> 1617531 ps: 3510501.
  EXPECT_EQ(run->end("hw"), 3510501);
}

constexpr const char* kOneQueue = R"(
ops:
  - {name: first, engine: dma, queue: 3, bytes: 1048576}
  - {name: second, engine: dma, queue: 3, bytes: 1048576}
  - {name: third, engine: dma, queue: 3, bytes: 1048576}
)";

TEST(DmaSharing, AQueueIssuesTheNextTransferWhileTheOneBeforeMovesItsBytes) {
  auto run = simulate_yaml(kOneQueue, trn3());
  // Alone, a transfer's bytes take 1048576 / 0.528 = 1985939.4 -> 1985940 ps (its 330.24 ns of descriptors
  // overlap them). first moves from 900 ns: 2885940.
  EXPECT_EQ(run->end("first"), 2885940);
  // Depth 2: second is dispatched when first's issue ends (900 ns); its issue is over at 1800 ns, and its bytes
  // follow first's on the queue's ring: 2885940 + 1985940 = 4871880.
  EXPECT_EQ(run->start("second"), 900000);
  EXPECT_EQ(run->bound("second"), "queue:first");
  EXPECT_EQ(run->end("second"), 4871880);
  // third waits for a place: dispatched when first finishes, its issue over at 3785940, its bytes after
  // second's: 6857820 = 900 ns + three transfers' bytes, every issue but the first hidden.
  EXPECT_EQ(run->start("third"), 2885940);
  EXPECT_EQ(run->bound("third"), "queue:first");
  EXPECT_EQ(run->end("third"), 6857820);
}

TEST(DmaSharing, DepthOneIssuesAfterTheTransferBeforeHasFinished) {
  auto run = simulate_yaml(kOneQueue, trn3({"core.dma.queue_depth=1"}));
  // Each alone: 900000 + 1985940 = 2885940 ps, one after another.
  EXPECT_EQ(run->end("first"), 2885940);
  EXPECT_EQ(run->start("second"), 2885940);
  EXPECT_EQ(run->end("second"), 5771880);
  EXPECT_EQ(run->end("third"), 8657820);
}

TEST(DmaSharing, ManyQueuesOfIdenticalTransfersKeepTheEnginesBusy) {
  // 16 queues x 8 transfers of [128, 2 KiB]: 32 MiB at the core's 528 B/ns is 63550.1 ns of bytes. With the
  // issues overlapping the bytes (depth 2) and the descriptors processed as the bytes move, the queues do not
  // re-enter their issue together: the run takes the first issue plus the bytes, within 2%.
  std::string yaml = "ops:\n";
  for (int t = 0; t < 8; ++t)
    for (int q = 0; q < 16; ++q)
      yaml += "  - {name: q" + std::to_string(q) + "_" + std::to_string(t) + ", engine: dma, queue: " +
              std::to_string(q) + ", bytes: 262144}\n";
  auto run = simulate_yaml(yaml, trn3());
  const double ideal_ns = 900 + 33554432.0 / 528;  // 64450.1 ns
  EXPECT_LT(static_cast<double>(run->result.total_ps) / 1000, ideal_ns * 1.02);
  EXPECT_GE(static_cast<double>(run->result.total_ps) / 1000, ideal_ns);
}

TEST(DmaSharing, ConsumersSeeATransferAfterItsCompletionSemaphore) {
  auto run = simulate_yaml(R"(
ops:
  - {name: load, engine: dma, bytes: 4096}
  - {name: use, engine: vector, kind: tensor_copy, free: 16, deps: [load], duration_ns: 10}
)", trn3());
  // load ends at 1230240 ps (above); its consumer starts core.dma.completion_ns = 290 ns later.
  EXPECT_EQ(run->start("use"), 1230240 + 290000);
}

TEST(DmaSharing, CrossCoreTransferUsesTheLink) {
  auto run = simulate_yaml(R"(
ops:
  - {name: x, engine: dma, core: 0, bytes: 1048576, src: sbuf, dst: core1}
)", trn3());
  // issue 900 + link latency 500 twice (the core barrier's semaphore, then the data) = 1900 ns; rate
  // min(528, link 100) = 100 B/ns: 1048576 / 0.1 = 10485760 ps -> 12385760 ps. No HBM bytes.
  EXPECT_EQ(run->end("x"), 12385760);
  EXPECT_EQ(run->result.hbm_read_bytes, 0u);
  EXPECT_EQ(run->result.hbm_write_bytes, 0u);
}

}  // namespace
}  // namespace stasim::test
