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

// Two loads on two DMA queues, a matmul into PSUM bank 0, a vector copy that drains it, a store.
constexpr const char* kSchedule = R"(
ops:
  - {name: load_a, engine: dma, queue: 0, bytes: 128000, src: hbm, dst: sbuf}
  - {name: load_b, engine: dma, queue: 1, bytes: 64000, src: hbm, dst: sbuf}
  - {name: mm, engine: tensor, kind: matmul, k: 128, m: 1, n: 512, deps: [load_a, load_b], psum_bank: 0, phase: gate_up}
  - {name: cp, engine: vector, kind: tensor_copy, free: 512, input_in_psum: true, deps: [mm], releases_psum_bank: 0, phase: act}
  - {name: store, engine: dma, queue: 0, bytes: 1024, src: sbuf, dst: hbm, deps: [cp]}
)";

struct Fixture {
  LoadedSchedule schedule = read_schedule(parse_yaml_text(kSchedule, "tiny.yaml"), "tiny.yaml");
  HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml",
                                    {"core.dma.fixed_ns=1300"});
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
  // In op order, each critical op followed by its copy: load_a, load_a*, load_b, mm, mm*, ...
  EXPECT_EQ(slices[2]["name"], "load_b");
  EXPECT_EQ(slices[2]["tid"], trace_engine_tid(Engine::dma, 1));
  EXPECT_EQ(slices[3]["name"], "mm [gate_up]");
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
  std::vector<std::pair<double, double>> hbm, psum;
  for (const auto& e : events_where(doc, "C")) {
    if (e["name"] == "HBM bandwidth in use (GB/s)") hbm.emplace_back(e["ts"], e["args"]["GB/s"]);
    if (e["name"] == "PSUM banks held") psum.emplace_back(e["ts"], e["args"]["banks"]);
  }
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

TEST(TraceWriter, SecondRunInOneFileGetsItsOwnProcesses) {
  Fixture f;
  nlohmann::json doc = trace_json(f.schedule.graph, f.result, f.hw, {"dense", 0});
  append_trace(doc, f.schedule.graph, f.result, f.hw, {"cardan", 10});
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
