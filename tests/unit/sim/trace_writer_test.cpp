// The Perfetto trace and Graphviz writers on a tiny hand schedule with hand-set timings (no kernel): the
// document is valid JSON, and every track, slice, flow and counter value is the one the timings imply.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "sim/kernel/critical_path.hpp"
#include "sim/reports/dot_writer.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/kernel/result_summary.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/reports/trace_writer.hpp"

namespace stasim {
namespace {

// Two loads on two DMA queues, a matmul into PSUM bank 0, a vector copy that drains it, a store. Buffer a lives
// from load_a's start to mm's end, b from load_b's start to mm's end, out from cp's start to store's end.
constexpr const char* kSchedule = R"(
buffers:
  - {name: a, bytes_per_partition: 1000}
  - {name: b, bytes_per_partition: 500}
  - {name: out, bytes_per_partition: 8}
ops:
  - {name: load_a, engine: dma, queue: 0, bytes: 128000, src: hbm, dst: sbuf, buffers: [a]}
  - {name: load_b, engine: dma, queue: 1, bytes: 64000, src: hbm, dst: sbuf, buffers: [b]}
  - {name: mm, engine: tensor, kind: matmul, k: 128, m: 1, n: 512, deps: [load_a, load_b], psum_bank: 0, phase: gate_up, buffers: [a, b]}
  - {name: cp, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm], releases_psum_bank: 0, phase: act, buffers: [out]}
  - {name: store, engine: dma, queue: 0, bytes: 1024, src: sbuf, dst: hbm, deps: [cp], buffers: [out]}
)";

struct Fixture {
  LoadedSchedule schedule = read_schedule(parse_yaml_text(kSchedule, "tiny.yaml"), "tiny.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml",
                                    {"core.dma.issue_ns=1300"});
  SimResult result;

  Fixture() {
    // ps; the DMA fixed phase is 1300 ns, so load_a and load_b move bytes over [1300000, 2300000).
    result.ops = {{0, 2300000, kNoOp, BoundKind::start},
                  {0, 2300000, kNoOp, BoundKind::start},
                  {2350000, 2600000, 0, BoundKind::dep},
                  {2650000, 3000000, 2, BoundKind::dep},
                  {3050000, 4400000, 3, BoundKind::dep}};
    summarize_activity(schedule.graph, hw, result);
    result.critical_path = critical_path(schedule.graph, result.ops);
  }
};

std::vector<nlohmann::json> events_where(const nlohmann::json& doc, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

// A counter track's (ts, value) points: the "C" events named `name`, their value under args[`arg`].
std::vector<std::pair<double, double>> counter(const nlohmann::json& doc, const std::string& name,
                                               const std::string& arg) {
  std::vector<std::pair<double, double>> out;
  for (const auto& e : events_where(doc, "C"))
    if (e["name"] == name) out.emplace_back(e["ts"], e["args"][arg]);
  return out;
}

TEST(TraceWriter, TracksSlicesAndCriticalPath) {
  Fixture f;
  nlohmann::json doc = nlohmann::json::parse(trace_json(f.schedule.graph, f.result, f.hw).dump());
  int processes = 0, threads = 0;
  for (const auto& e : events_where(doc, "M")) {
    processes += e["name"] == "process_name";
    threads += e["name"] == "thread_name";
  }
  EXPECT_EQ(processes, 1);  // every op on core 0
  // dma queue 0, dma queue 1, tensor, vector, plus the critical-path track.
  EXPECT_EQ(threads, 5);
  std::vector<nlohmann::json> slices = events_where(doc, "X");
  // 5 ops + the critical path load_a -> mm -> cp -> store copied onto its track.
  ASSERT_EQ(slices.size(), 5u + 4u);
  // In op order, each critical op followed by its copy: load_a, load_a*, load_b, mm, mm*, ... Slices are named by
  // role (kind, and [phase] when tagged); the op's own label is args.name.
  EXPECT_EQ(slices[2]["name"], "transfer");
  EXPECT_EQ(slices[2]["args"]["name"], "load_b");
  EXPECT_EQ(slices[2]["tid"], trace_engine_tid(Engine::dma, 1));
  EXPECT_EQ(slices[3]["name"], "matmul [gate_up]");
  EXPECT_EQ(slices[3]["args"]["name"], "mm");
  EXPECT_EQ(slices[3]["tid"], trace_engine_tid(Engine::tensor, 0));
  EXPECT_DOUBLE_EQ(slices[3]["ts"].get<double>(), 2.35);   // us
  EXPECT_DOUBLE_EQ(slices[3]["dur"].get<double>(), 0.25);
  EXPECT_EQ(slices[4]["tid"], kCriticalPathTid);
  EXPECT_EQ(slices[4]["args"]["critical"], true);
  int on_path = 0;
  for (const auto& s : slices) on_path += s["tid"] == kCriticalPathTid;
  EXPECT_EQ(on_path, 4);
}

TEST(TraceWriter, FlowArrowsOnlyBetweenTracks) {
  Fixture f;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw);
  // load_a -> mm, load_b -> mm, mm -> cp, cp -> store: four deps, each across tracks; one start + one end each.
  EXPECT_EQ(events_where(doc, "s").size(), 4u);
  EXPECT_EQ(events_where(doc, "f").size(), 4u);
}

TEST(TraceWriter, HbmAndPsumCountersFollowTheTimings) {
  Fixture f;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw);
  std::vector<std::pair<double, double>> hbm = counter(doc, "HBM bandwidth in use (GB/s)", "GB/s"),
                                        psum = counter(doc, "PSUM banks held", "banks");
  // load_a 128000 B / 1000 ns = 128 GB/s plus load_b 64000 B / 1000 ns = 64 GB/s from 1.3 us to 2.3 us; the
  // store's 1024 B move in 4400000 - 3050000 - 1300000 = 50000 ps: 20.48 GB/s from 4.35 us to 4.4 us.
  ASSERT_EQ(hbm.size(), 4u);
  EXPECT_DOUBLE_EQ(hbm[0].first, 1.3);
  EXPECT_DOUBLE_EQ(hbm[0].second, 192.0);
  EXPECT_DOUBLE_EQ(hbm[1].first, 2.3);
  EXPECT_DOUBLE_EQ(hbm[1].second, 0.0);
  EXPECT_DOUBLE_EQ(hbm[2].first, 4.35);
  EXPECT_DOUBLE_EQ(hbm[2].second, 20.48);
  EXPECT_DOUBLE_EQ(hbm[3].second, 0.0);
  // Bank 0 is held from mm's start (2.35 us) to the end of cp, which releases it (3.0 us).
  ASSERT_EQ(psum.size(), 2u);
  EXPECT_DOUBLE_EQ(psum[0].first, 2.35);
  EXPECT_DOUBLE_EQ(psum[0].second, 1.0);
  EXPECT_DOUBLE_EQ(psum[1].first, 3.0);
  EXPECT_DOUBLE_EQ(psum[1].second, 0.0);
}

// The counter's data phase starts where the DMA model's does (sim/core/dma_descriptors.hpp dma_fixed_ps): a
// hardware-DGE load pays its DGE instruction before its bytes move, so its bandwidth starts after both.
TEST(TraceWriter, HbmCounterOfAHardwareDgeLoadStartsAfterItsDgeInstruction) {
  LoadedSchedule s = read_schedule(parse_yaml_text(R"(
ops:
  - {name: load, engine: dma, bytes: 100000, src: hbm, dst: sbuf, dge: hwdge}
)", "hwdge.yaml"), "hwdge.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml",
                                    {"core.dma.issue_ns=1300", "core.dma.hwdge_ns=600"});
  SimResult r;
  r.ops = {{0, 2900000, kNoOp, BoundKind::start}};
  summarize_activity(s.graph, hw, r);
  std::vector<std::pair<double, double>> hbm =
      counter(trace_json(s.graph, r, hw), "HBM bandwidth in use (GB/s)", "GB/s");
  // Issue 1300 + 600 = 1900 ns; the 100000 B move in 2900 - 1900 = 1000 ns: 100 GB/s from 1.9 us to 2.9 us.
  ASSERT_EQ(hbm.size(), 2u);
  EXPECT_DOUBLE_EQ(hbm[0].first, 1.9);
  EXPECT_DOUBLE_EQ(hbm[0].second, 100.0);
  EXPECT_DOUBLE_EQ(hbm[1].first, 2.9);
  EXPECT_DOUBLE_EQ(hbm[1].second, 0.0);
}

TEST(TraceWriter, SliceArgsCarryTheOpsFacts) {
  Fixture f;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw);
  std::vector<nlohmann::json> slices = events_where(doc, "X");
  const nlohmann::json& b = slices[2]["args"];  // load_b: 64000 bytes over 128 partitions in 2300 ns
  EXPECT_EQ(b["kind"], "transfer");
  EXPECT_EQ(b["phase"], "untagged");
  EXPECT_EQ(b["queue"], "dma1");
  EXPECT_EQ(b["bound_by"], "start");
  EXPECT_EQ(b["bytes"], 64000);
  EXPECT_EQ(b["src"], "hbm");
  EXPECT_EQ(b["dst"], "sbuf");
  EXPECT_DOUBLE_EQ(b["bytes_per_partition"].get<double>(), 500.0);  // 64000 / 128
  EXPECT_DOUBLE_EQ(b["achieved_gbps"].get<double>(), 27.826);      // 64000 B / 2300 ns, to 3 decimals
  EXPECT_FALSE(b.contains("layer"));                                // no "L<n>." label
  const nlohmann::json& mm = slices[3]["args"];
  EXPECT_EQ(mm["bound_by"], "dep:load_a");
  EXPECT_EQ(mm["shape"], "k128 m1 n512");
  EXPECT_EQ(mm["dtype"], "bf16");
  EXPECT_EQ(mm["critical"], true);
  EXPECT_FALSE(mm.contains("bytes"));
}

TEST(TraceWriter, SbufCounterFollowsTheBufferLifetimes) {
  Fixture f;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw);
  std::vector<std::pair<double, double>> sbuf;
  for (const auto& e : events_where(doc, "C"))
    if (e["name"] == "SBUF in use (bytes per partition)") sbuf.emplace_back(e["ts"], e["args"]["bytes"]);
  // a (1000) and b (500) from 0 to mm's end at 2.6 us; out (8) from cp's start 2.65 us to store's end 4.4 us.
  ASSERT_EQ(sbuf.size(), 4u);
  EXPECT_EQ(sbuf[0], std::make_pair(0.0, 1500.0));
  EXPECT_EQ(sbuf[1], std::make_pair(2.6, 0.0));
  EXPECT_EQ(sbuf[2], std::make_pair(2.65, 8.0));
  EXPECT_EQ(sbuf[3], std::make_pair(4.4, 0.0));
}

// Two layers' worth of ops: L0.load -> L0.mm -> L1.mm, L1.load -> L1.mm, PSUM banks 0 and 1.
constexpr const char* kLayers = R"(
ops:
  - {name: L0.load, engine: dma, queue: 0, bytes: 100000, src: hbm, dst: sbuf}
  - {name: L0.e3.mm, engine: tensor, kind: matmul, k: 128, m: 1, n: 512, deps: [L0.load], psum_bank: 0, releases_psum_bank: 0}
  - {name: L1.load, engine: dma, queue: 1, bytes: 100000, src: hbm, dst: sbuf}
  - {name: L1.e5.mm, engine: tensor, kind: matmul, k: 128, m: 1, n: 512, deps: [L0.e3.mm, L1.load], psum_bank: 1, releases_psum_bank: 1}
)";

TEST(TraceWriter, LayerRangeKeepsItsOpsAndTheCountersOverItsSpan) {
  LoadedSchedule schedule = read_schedule(parse_yaml_text(kLayers, "layers.yaml"), "layers.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml", {"core.dma.issue_ns=1000"});
  SimResult r;
  // L0.load [0, 2 us) moving over [1, 2) us; L1.load [0.5, 3.5 us) moving over [1.5, 3.5) us.
  r.ops = {{0, 2000000, kNoOp, BoundKind::start},
           {2100000, 2300000, 0, BoundKind::dep},
           {500000, 3500000, kNoOp, BoundKind::start},
           {3600000, 3800000, 2, BoundKind::dep}};
  summarize_activity(schedule.graph, hw, r);
  r.critical_path = critical_path(schedule.graph, r.ops);
  TraceOptions options;
  options.first_layer = options.last_layer = 1;
  nlohmann::json doc = trace_json(schedule.graph, r, hw, options);
  std::vector<nlohmann::json> slices = events_where(doc, "X");
  std::set<std::string> names;
  for (const auto& s : slices) names.insert(s["args"]["name"]);
  EXPECT_EQ(names, (std::set<std::string>{"L1.load", "L1.e5.mm"}));
  for (const auto& s : slices) {
    EXPECT_EQ(s["args"]["layer"], 1);
    if (s["args"]["name"] == "L1.e5.mm") {
      EXPECT_EQ(s["args"]["expert"], 5);
    }
  }
  // The flow L0.e3.mm -> L1.e5.mm leaves the range; L1.load -> L1.e5.mm stays.
  EXPECT_EQ(events_where(doc, "s").size(), 1u);
  // HBM in the window [0.5, 3.8] us (L1's ops): nothing changed before 0.5 us, so the counter starts at its first
  // change: L0.load moves 100000 B / 1000 ns = 100 GB/s from 1 us (still counted: the counter is the core's),
  // + L1.load's 100000 / 2000 = 50 from 1.5 us, 50 from 2 us, 0 at 3.5 us.
  std::vector<std::pair<double, double>> hbm;
  for (const auto& e : events_where(doc, "C"))
    if (e["name"] == "HBM bandwidth in use (GB/s)") hbm.emplace_back(e["ts"], e["args"]["GB/s"]);
  ASSERT_EQ(hbm.size(), 4u);
  EXPECT_EQ(hbm[0], std::make_pair(1.0, 100.0));
  EXPECT_EQ(hbm[1], std::make_pair(1.5, 150.0));
  EXPECT_EQ(hbm[2], std::make_pair(2.0, 50.0));
  EXPECT_EQ(hbm[3], std::make_pair(3.5, 0.0));
  // PSUM: bank 0 held [2.1, 2.3] us and bank 1 [3.6, 3.8] us; the window opens at 0.5 us, before either.
  std::vector<std::pair<double, double>> psum;
  for (const auto& e : events_where(doc, "C"))
    if (e["name"] == "PSUM banks held") psum.emplace_back(e["ts"], e["args"]["banks"]);
  ASSERT_EQ(psum.size(), 4u);
  EXPECT_EQ(psum[0], std::make_pair(2.1, 1.0));
  EXPECT_EQ(psum[3], std::make_pair(3.8, 0.0));
  EXPECT_EQ(doc["otherData"]["layers"], "1:1");
}

TEST(TraceWriter, AWindowOpensWithTheValueReachedBeforeIt) {
  LoadedSchedule schedule = read_schedule(parse_yaml_text(kLayers, "layers.yaml"), "layers.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml", {"core.dma.issue_ns=1000"});
  SimResult r;
  // Now L1 starts late: L1.load [2.5, 4.5) us, so L0's bank-0 group [2.1, 2.3] and L0.load are before the window
  // except that L0.load still moves bytes until 2 us < 2.5: the HBM counter opens at 2.5 with 0.
  r.ops = {{0, 2000000, kNoOp, BoundKind::start},
           {2100000, 2600000, 0, BoundKind::dep},
           {2500000, 4500000, kNoOp, BoundKind::start},
           {4600000, 4800000, 2, BoundKind::dep}};
  summarize_activity(schedule.graph, hw, r);
  r.critical_path = critical_path(schedule.graph, r.ops);
  TraceOptions options;
  options.first_layer = options.last_layer = 1;
  nlohmann::json doc = trace_json(schedule.graph, r, hw, options);
  std::vector<std::pair<double, double>> psum;
  for (const auto& e : events_where(doc, "C"))
    if (e["name"] == "PSUM banks held") psum.emplace_back(e["ts"], e["args"]["banks"]);
  // Bank 0 is held from 2.1 us (before the window) to 2.6 us: the window opens at 2.5 us with 1 bank held.
  ASSERT_EQ(psum.size(), 4u);
  EXPECT_EQ(psum[0], std::make_pair(2.5, 1.0));
  EXPECT_EQ(psum[1], std::make_pair(2.6, 0.0));
  EXPECT_EQ(psum[2], std::make_pair(4.6, 1.0));
  EXPECT_EQ(psum[3], std::make_pair(4.8, 0.0));
}

TEST(TraceWriter, SecondRunInOneFileGetsItsOwnProcesses) {
  Fixture f;
  TraceOptions dense, cardan;
  dense.title = "dense";
  cardan.title = "cardan";
  cardan.first_pid = 10;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw, dense);
  append_trace(doc, f.schedule.graph, f.result, f.hw, cardan);
  std::set<int> pids;
  for (const auto& e : events_where(doc, "X")) pids.insert(e["pid"].get<int>());
  EXPECT_EQ(pids, (std::set<int>{0, 10}));
}

TEST(DotWriter, OneNodePerOpAndTheCriticalPathInRed) {
  Fixture f;
  std::ostringstream out;
  write_dot(out, f.schedule.graph, f.result);
  std::string dot = out.str();
  auto count = [&dot](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = dot.find(what); at != std::string::npos; at = dot.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_EQ(count("->"), 4u);                 // four dependencies
  EXPECT_EQ(count("fillcolor"), 4u);          // load_a, mm, cp, store on the path
  EXPECT_EQ(count("penwidth=3"), 3u);         // load_a->mm, mm->cp, cp->store
  EXPECT_NE(dot.find("mm\\ntensor core 0\\n2350.000-2600.000 ns"), std::string::npos) << dot;
}

}  // namespace
}  // namespace stasim
