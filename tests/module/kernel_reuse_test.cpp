// One SystemC kernel serves every simulation of a process (sim/kernel/accelerator_module.hpp). This test runs
// a sequence of different graphs in this process — schedules on one and two cores, a random DAG, a decode step,
// one that deadlocks, one that fails validation, then the first again — and compares every result, byte for
// byte, with what a fresh process gives for the same graph alone (the stasim binary, run once per graph).
#include <gmock/gmock.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dataflows/random_dag.hpp"
#include "schedule_fixture.hpp"
#include "sim/core/input_error.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/reports/trace_output.hpp"
#include "sim/studies/decode_run.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

namespace fs = std::filesystem;

const char* location(Location l) {
  switch (l) {
    case Location::hbm: return "hbm";
    case Location::sbuf: return "sbuf";
    case Location::psum: return "psum";
    case Location::peer: return "peer";
  }
  return "?";
}

// The benchmark's random DAG written as a schedule YAML, so the binary can load the same graph.
std::string random_dag_yaml(std::size_t ops, std::uint64_t seed) {
  ScheduleGraph g = random_dag(ops, 2, seed);
  std::ostringstream out;
  out << "ops:\n";
  for (OpId v = 0; v < g.size(); ++v) {
    const Op& o = g.op(v);
    out << "  - {name: " << g.name(v) << ", engine: " << engine_name(o.engine) << ", kind: " << op_kind_name(o.kind)
        << ", core: " << int(o.core);
    if (o.engine == Engine::dma)
      out << ", queue: " << o.queue << ", bytes: " << o.bytes << ", src: " << location(o.src)
          << ", dst: " << location(o.dst);
    else if (o.kind == OpKind::matmul)
      out << ", k: " << o.k << ", m: " << o.m << ", n: " << o.n << ", psum_bank: " << int(o.psum_bank)
          << ", new_stationary: " << (o.new_stationary ? "true" : "false");
    else
      out << ", free: " << o.free;
    if (o.input_in_psum) out << ", input_in_psum: true";
    if (o.releases_psum_bank >= 0) out << ", releases_psum_bank: " << int(o.releases_psum_bank);
    out << ", deps: [";
    auto in = g.in_edges(v);
    for (const auto* e = in.begin(); e != in.end(); ++e) out << (e == in.begin() ? "" : ", ") << g.name(g.source(*e));
    out << "]}\n";
  }
  return out.str();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class KernelReuse : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stasim-kernel-reuse-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  // A fresh process: `stasim schedule` on the file alone; its JSON, or its error message.
  std::string fresh_schedule(const fs::path& schedule) {
    fs::path json = dir_ / "fresh.json";
    fs::remove(json);
    Output o = run_stasim("schedule --quiet --hw " + std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml --schedule " +
                          schedule.string() + " --json " + json.string());
    if (o.code != 0) return o.text;
    // The CLI adds its provenance (command line, options, config hashes), which this process has no part in;
    // the rest is compared byte for byte, written the same way.
    nlohmann::json doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc.erase("provenance"), 1u);
    write_json_file(json.string(), doc);
    return read_file(json);
  }

  // This process: the same steps as `stasim schedule`, on the kernel every earlier test of this process used.
  std::string here_schedule(const fs::path& schedule) {
    HardwareConfig hw = trn3();
    try {
      LoadedSchedule s = load_schedule(schedule.string());
      SimResult r;
      try {
        r = simulate(s.graph, hw, s.locator(), s.buffer_locator());
      } catch (const DeadlockError& e) {
        throw InputError(std::string(e.what()) + "\n(" + schedule.string() + " cannot complete on " + hw.name +
                         ": reorder the ops or the PSUM banks of the wait cycle)");
      }
      fs::path json = dir_ / "here.json";
      write_json_file(json.string(), result_json(s.graph, hw, r));
      return read_file(json);
    } catch (const InputError& e) {
      return std::string("error: ") + e.what() + "\n";
    }
  }

  fs::path dir_;
};

TEST_F(KernelReuse, EveryRunEqualsAFreshProcess) {
  const std::string schedules = std::string(STASIM_SOURCE_DIR) + "/configs/schedules/";
  fs::path deadlock = write("deadlock.yaml", R"(ops:
  - {name: a, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: drain_a, engine: vector, duration_ns: 10, deps: [a, b], releases_psum_bank: 2}
  - {name: drain_b, engine: vector, duration_ns: 10, deps: [b], releases_psum_bank: 2}
)");
  fs::path cycle = write("cycle.yaml", R"(ops:
  - {name: x, engine: vector, kind: tensor_copy, free: 64, deps: [y]}
  - {name: y, engine: scalar, kind: activation, free: 64, deps: [x]}
)");
  fs::path dag = write("dag.yaml", random_dag_yaml(1500, 3));
  const std::vector<fs::path> sequence = {
      schedules + "expert_ffn_tile.yaml", deadlock, schedules + "cross_core_reduce.yaml", cycle, dag,
      schedules + "psum_contention.yaml", deadlock, schedules + "dma_sharing.yaml", schedules + "expert_ffn_tile.yaml"};
  int deadlocks = 0, invalid = 0;
  for (const fs::path& schedule : sequence) {
    SCOPED_TRACE(schedule.filename().string());
    std::string here = here_schedule(schedule);
    EXPECT_EQ(here, fresh_schedule(schedule));
    deadlocks += here.find("deadlock: 3 of 4 ops never ran") != std::string::npos;
    invalid += here.find("dependency cycle") != std::string::npos;
    EXPECT_EQ(here.rfind("error", 0) == 0, schedule == deadlock || schedule == cycle);
  }
  EXPECT_EQ(deadlocks, 2);
  EXPECT_EQ(invalid, 1);
}

TEST_F(KernelReuse, DecodeStepAfterOtherGraphsEqualsAFreshProcess) {
  // First a deadlock and a two-core random DAG on this process's kernel, then a two-layer decode step with
  // auto down schedule (four more simulations): its JSON and its per-op trace equal the binary's.
  here_schedule(write("deadlock.yaml", R"(ops:
  - {name: a, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: b, engine: tensor, kind: matmul, k: 128, m: 128, n: 512, psum_bank: 2}
  - {name: drain_a, engine: vector, duration_ns: 10, deps: [a, b], releases_psum_bank: 2}
)"));
  here_schedule(write("dag.yaml", random_dag_yaml(800, 5)));
  DataflowRegistry registry;
  register_builtin(registry);
  RunRequest req;
  req.model = std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml";
  req.hw = std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml";
  req.layers = 2;
  DecodeRun run = run_decode(req, registry);
  write_json_file((dir_ / "here.json").string(), decode_json(run));
  TraceOptions trace_options;
  trace_options.title = run.dataflow;
  write_trace_file((dir_ / "here.trace.json").string(), run.decode.graph, run.result, run.hw, trace_options);
  Output o = run_stasim("run --quiet --model " + req.model + " --hw " + req.hw + " --layers 2 --json " +
                        (dir_ / "fresh.json").string() + " --trace " + (dir_ / "fresh.trace.json").string());
  ASSERT_EQ(o.code, 0) << o.text;
  // The CLI adds the provenance (its command line, options and config hashes) to both files; everything else
  // must be the same bytes, so the fresh files are compared with the provenance taken out and written the same way.
  nlohmann::json fresh = nlohmann::json::parse(read_file(dir_ / "fresh.json"));
  ASSERT_EQ(fresh.erase("provenance"), 1u);
  write_json_file((dir_ / "fresh.bare.json").string(), fresh);
  EXPECT_EQ(read_file(dir_ / "here.json"), read_file(dir_ / "fresh.bare.json"));
  nlohmann::json fresh_trace = nlohmann::json::parse(read_file(dir_ / "fresh.trace.json"));
  ASSERT_EQ(fresh_trace["otherData"].erase("provenance"), 1u);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "here.trace.json")), fresh_trace);
  EXPECT_GT(read_file(dir_ / "here.trace.json").size(), 100000u);  // a real trace, not two empty files
}

}  // namespace
}  // namespace stasim::test
