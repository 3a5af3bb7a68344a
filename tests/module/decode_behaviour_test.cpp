// Behaviour of the decode dataflows through the SystemC kernel, on the shipped defaults (trn3-calibrated, TP 4, LNC 2,
// batch 1): the hybrid beats dense on Qwen3-30B-A3B, VQ-only at (2, 0) is GpSimd-bound, the overlap windows
// do what docs/cardan.md says, every shipped model fits SBUF and PSUM, and `auto` keeps the fastest schedule.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/kernel/result_summary.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {
namespace {

DecodeRun run(const std::string& dataflow, std::int64_t layers = 0, RunRequest req = {}) {
  DataflowRegistry registry;
  register_builtin(registry);
  req.dataflow = dataflow;
  req.layers = layers;
  return run_decode(req, registry);
}

Picoseconds end_of(const DecodeRun& r, const std::string& name) {
  for (OpId v = 0; v < r.decode.graph.size(); ++v)
    if (r.decode.graph.name(v) == name) return r.result.ops[v].end_ps;
  ADD_FAILURE() << "no op " << name;
  return 0;
}

TEST(DecodeBehaviour, HybridIsFasterThanDenseOnQwen3AtBatchOne) {
  DecodeRun dense = run("dense"), cardan = run("cardan");
  EXPECT_EQ(dense.decode.layers.size(), 48u);
  EXPECT_LT(cardan.result.total_ps, dense.result.total_ps);
  EXPECT_LT(cardan.result.hbm_read_bytes, dense.result.hbm_read_bytes);
}

TEST(DecodeBehaviour, VqOnlyAtD2IsGpSimdBound) {
  RunRequest req;
  req.d = 2;
  req.r = 0;
  DecodeRun r = run("cardan", 0, req);
  const auto& by_engine = r.result.critical_path.by_engine_ps;
  int top = int(std::max_element(by_engine.begin(), by_engine.end()) - by_engine.begin());
  EXPECT_EQ(static_cast<Engine>(top), Engine::gpsimd);
}

TEST(DecodeBehaviour, SharedWeightsLoadWhileTheRouterRuns) {
  DecodeRun r = run("cardan", 2);
  // Window 1: B and D do not depend on routing, so they are in SBUF before the top-k is known.
  for (const char* core : {"c0", "c1"}) {
    std::string p = std::string("L1.") + core + ".";
    Picoseconds topk = end_of(r, p + "router.affinities");
    EXPECT_LT(end_of(r, p + "gate.load_D"), topk);
    EXPECT_LT(end_of(r, p + "up.load_D"), topk);
    EXPECT_LT(end_of(r, p + "gate.load_B"), topk);
  }
  // Without the windows they wait for it.
  RunRequest req;
  req.no_overlap = true;
  DecodeRun off = run("cardan", 2, req);
  EXPECT_GT(end_of(off, "L1.c0.gate.load_D"), end_of(off, "L1.c0.router.affinities"));
  EXPECT_GT(off.result.total_ps, r.result.total_ps);
}

TEST(DecodeBehaviour, DownWeightDmaOverlapsTheGateUpWork) {
  DecodeRun r = run("cardan", 4);
  const ScheduleGraph& g = r.decode.graph;
  // Union of the gate/up computation (shared projections, gathers, LR, activation) vs the down loads' time.
  std::vector<std::pair<Picoseconds, Picoseconds>> compute, down;
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& op = g.op(v);
    const std::string& phase = g.phases()[op.phase];
    const OpTiming& t = r.result.ops[v];
    if (op.engine == Engine::dma && g.name(v).find(".load_down[") != std::string::npos) down.emplace_back(t.start_ps, t.end_ps);
    else if (op.engine != Engine::dma && (phase == "gather" || phase == "lr" || phase == "shared_proj" || phase == "act"))
      compute.emplace_back(t.start_ps, t.end_ps);
  }
  Picoseconds down_time = union_length(down);
  std::vector<std::pair<Picoseconds, Picoseconds>> both;
  std::sort(compute.begin(), compute.end());
  // Overlap = |down| + |compute| - |down ∪ compute|.
  both = down;
  both.insert(both.end(), compute.begin(), compute.end());
  Picoseconds overlap = down_time + union_length(compute) - union_length(both);
  // cardan.md: over 80% of the down weights' DMA time overlaps the gate/up computation.
  EXPECT_GT(double(overlap) / double(down_time), 0.8);
}

TEST(DecodeBehaviour, EveryShippedModelFitsSbufAndPsumWithBothDataflows) {
  DataflowRegistry registry;
  register_builtin(registry);
  for (const char* model : {"qwen3-30b-a3b", "olmoe-1b-7b", "deepseek-v2-lite", "gemma-4-26b-a4b",
                            "nemotron-3-nano-30b-a3b", "mixtral-8x7b", "deepseek-v3"}) {
    for (const char* dataflow : {"dense", "cardan"}) {
      SCOPED_TRACE(std::string(model) + " " + dataflow);
      RunRequest req;
      req.model = model;
      req.dataflow = dataflow;
      req.layers = 6;
      req.down = "weight-sbuf";
      DecodeRun r = run_decode(req, registry);  // throws InputError on an SBUF overflow
      EXPECT_LE(r.result.sbuf_peak_bytes_per_partition, r.hw.sbuf.usable_bytes_per_partition());
      EXPECT_LE(r.result.psum_peak_banks, r.hw.psum.banks);
      EXPECT_GT(r.result.total_ps, 0);
    }
  }
}

// The TPOT is the device's step and the host's part of it (runtime.step_us, NxDI's synchronous loop): the same
// graph with the host's part at 0 and at 400 us differs by exactly 400 us of TPOT and not at all on the device.
TEST(DecodeBehaviour, TheHostsPartOfTheStepAddsToTheTpotOnly) {
  RunRequest none, host;
  none.down = host.down = "weight-sbuf";
  none.sets = {"runtime.step_us=0"};
  host.sets = {"runtime.step_us=400"};
  DecodeRun a = run("dense", 2, none), b = run("dense", 2, host);
  EXPECT_EQ(a.host_step_ps, 0);
  EXPECT_EQ(b.host_step_ps, 400'000'000);  // 400 us in ps
  EXPECT_EQ(a.result.total_ps, b.result.total_ps);
  EXPECT_EQ(b.tpot_ps(), a.tpot_ps() + 400'000'000);
  nlohmann::json doc = decode_json(b);
  EXPECT_DOUBLE_EQ(doc["host_step_us"].get<double>(), 400.0);
  EXPECT_NEAR(doc["tpot_us"].get<double>(), doc["device_step_us"].get<double>() + 400.0, 1e-3);
}

TEST(DecodeBehaviour, AutoKeepsTheFastestDownSchedule) {
  DecodeRun r = run("dense", 2);
  ASSERT_TRUE(r.down_auto);
  ASSERT_EQ(r.down_candidates_us.size(), 4u);
  double best = 1e300;
  for (const auto& [name, t] : r.down_candidates_us)
    if (t >= 0) best = std::min(best, t);
  // Candidates are reported as TPOTs: the device step and the host's part, the same for every candidate.
  EXPECT_DOUBLE_EQ(static_cast<double>(r.tpot_ps()) / 1e6, best);
}

}  // namespace
}  // namespace stasim
