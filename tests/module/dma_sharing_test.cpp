// DMA timing through the SystemC kernel: fixed cost, max-min fair sharing of per-core DMA capacity and of the
// HBM share, rate recomputation when transfers start and finish, time per descriptor, queue order, the link.
// trn3: per-core DMA = 16 engines x 33 B/ns = 528 B/ns; HBM share = 4700 B/ns x lnc 2 / 8 cores = 1175 B/ns;
// fixed 1300 ns; semaphore 50 ns. Data phases round up to the picosecond.
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
  // Core capacity 528 B/ns binds before HBM (1175): each gets 264 B/ns = 0.264 B/ps.
  // 1048576 / 0.264 = 3971878.79 ps -> 3971879 ps; plus 1300000 ps fixed = 5271879 ps.
  EXPECT_EQ(run->end("a"), 5271879);
  EXPECT_EQ(run->end("b"), 5271879);
  EXPECT_EQ(run->result.dma_active_ps, 5271879);
  EXPECT_EQ(run->result.hbm_read_bytes, 2u * 1048576u);
}

TEST(DmaSharing, LoadsOnTwoCoresEachGetTheirCoreRate) {
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576}
)", trn3());
  // Each core's 528 B/ns; together 1056 < 1175 HBM. 1048576 / 0.528 = 1985939.39 -> 1985940 ps + 1300000.
  EXPECT_EQ(run->end("a"), 3285940);
  EXPECT_EQ(run->end("b"), 3285940);
}

TEST(DmaSharing, HbmShareBindsWhenItIsSmaller) {
  // HBM 1600 GB/s -> share 1600 x 2 / 8 = 400 B/ns for the two simulated cores: 200 B/ns each.
  auto run = simulate_yaml(R"(
ops:
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576}
)", trn3({"device.hbm.bandwidth_gbps=1600"}));
  // 1048576 / 0.2 = 5242880 ps + 1300000 = 6542880 ps.
  EXPECT_EQ(run->end("a"), 6542880);
  EXPECT_EQ(run->end("b"), 6542880);
}

TEST(DmaSharing, RatesAreRecomputedWhenATransferJoinsAndLeaves) {
  auto run = simulate_yaml(R"(
ops:
  - {name: delay, engine: vector, core: 1, duration_ns: 1000}
  - {name: a, engine: dma, core: 0, bytes: 1048576}
  - {name: b, engine: dma, core: 1, bytes: 1048576, deps: [delay]}
)", trn3({"device.hbm.bandwidth_gbps=1600"}));
  // HBM share 400 B/ns. a moves alone from 1300 ns at min(528, 400) = 400 B/ns.
  // b starts at 1000 + 50 (semaphore) = 1050 ns, moves from 2350 ns; then both get 200 B/ns.
  // a by 2350: 1050 ns x 400 = 420000 B; left 628576 B / 0.2 B/ps = 3142880 ps -> a ends 5492880 ps.
  EXPECT_EQ(run->start("b"), 1050000);
  EXPECT_EQ(run->end("a"), 5492880);
  // b moved 628576 B by then, 420000 B left alone at 400 B/ns = 1050000 ps -> 6542880 ps.
  EXPECT_EQ(run->end("b"), 6542880);
}

TEST(DmaSharing, SmallTransfersAreBoundByTheirDescriptors) {
  auto run = simulate_yaml(R"(
ops:
  - {name: small, engine: dma, bytes: 4096, partitions: 128}
)", trn3());
  // 32 B per partition: 128 descriptors x 62 ns / 16 engines = 496 ns, longer than 4096 / 0.528 = 7758 ps of
  // bytes: 1300000 + 496000 = 1796000 ps.
  EXPECT_EQ(run->end("small"), 1796000);
  EXPECT_EQ(run->result.hbm_read_bytes, 4096u);
}

TEST(DmaSharing, ASmallTransferBesideALargeOneLeavesItItsBandwidth) {
  auto run = simulate_yaml(R"(
ops:
  - {name: large, engine: dma, queue: 0, bytes: 4194304}
  - {name: small, engine: dma, queue: 1, bytes: 4096}
)", trn3());
  // Both move from 1300 ns. small is held to its descriptors' pace, 4096 B over 496000 ps = 0.0082581 B/ps,
  // and ends at 1796000 ps; large takes the rest of the core's 0.528 B/ps: 0.528 - 4096 / 496000.
  EXPECT_EQ(run->end("small"), 1796000);
  // By 1796000 large moved 0.528 x 496000 - 4096 = 257792 B; the other 3936512 B at 0.528 B/ps take
  // 7455515.15 ps -> 7455516: 9251516 ps, i.e. exactly the small one's 4096 bytes (7758 ps) later than alone
  // (1300000 + 4194304 / 0.528 = 9243758 ps).
  EXPECT_EQ(run->end("large"), 9251516);
}

TEST(DmaSharing, ShortRunsCostDescriptorsNotBandwidth) {
  auto run = simulate_yaml(R"(
ops:
  - {name: slices, engine: dma, bytes: 1048576, contiguous_bytes: 192}
)", trn3());
  // 8192 B per partition in 192-byte runs: 43 descriptors each, 5504 x 62 ns / 16 = 21328 ns > 1986 ns of
  // bytes: 1300000 + 21328000 = 22628000 ps.
  EXPECT_EQ(run->end("slices"), 22628000);
}

TEST(DmaSharing, FewPartitionsRunOnFewEngines) {
  auto run = simulate_yaml(R"(
ops:
  - {name: rows, engine: dma, bytes: 32768, partitions: 4}
  - {name: hw, engine: dma, queue: 1, bytes: 1048576, dge: hwdge}
)", trn3());
  // DMA's A[4, 4096] BF16: 4 partitions run on one engine, 33 B/ns: 32768 / 0.033 = 992969.7 -> 992970 ps
  // (4 descriptors x 62 ns = 248 ns hide under it) + 1300000.
  EXPECT_EQ(run->end("rows"), 2292970);
  // Hardware DGE adds its 600 ns instruction to the issue: hw moves from 1900000 ps. rows keeps its one
  // engine's 0.033 B/ps until 2292970, hw takes the other 0.495: 0.495 x 392970 = 194520.15 B; the remaining
  // 854055.85 B at 0.528 B/ps take 1617530.02 -> 1617531 ps: 3910501.
  EXPECT_EQ(run->end("hw"), 3910501);
}

TEST(DmaSharing, OneQueueRunsInProgramOrder) {
  auto run = simulate_yaml(R"(
ops:
  - {name: first, engine: dma, queue: 3, bytes: 1048576}
  - {name: second, engine: dma, queue: 3, bytes: 1048576}
)", trn3());
  // Each alone at 528 B/ns: 3285940 ps; the second starts when the first ends.
  EXPECT_EQ(run->end("first"), 3285940);
  EXPECT_EQ(run->start("second"), 3285940);
  EXPECT_EQ(run->end("second"), 6571880);
  EXPECT_EQ(run->bound("second"), "queue:first");
}

TEST(DmaSharing, CrossCoreTransferUsesTheLink) {
  auto run = simulate_yaml(R"(
ops:
  - {name: x, engine: dma, core: 0, bytes: 1048576, src: sbuf, dst: core1}
)", trn3());
  // fixed 1300 + link latency 500 twice (the core barrier's semaphore, then the data) = 2300 ns; rate
  // min(528, link 100) = 100 B/ns: 1048576 / 0.1 = 10485760 ps -> 12785760 ps. No HBM bytes.
  EXPECT_EQ(run->end("x"), 12785760);
  EXPECT_EQ(run->result.hbm_read_bytes, 0u);
  EXPECT_EQ(run->result.hbm_write_bytes, 0u);
}

}  // namespace
}  // namespace stasim::test
