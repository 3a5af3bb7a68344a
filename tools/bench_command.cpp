// `stasim bench`: the simulator's own speed and memory on a synthetic random DAG (dataflows/random_dag.hpp).
// Prints figures; it is a benchmark, never a pass/fail test.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "dataflows/random_dag.hpp"
#include "sim/graph_validation.hpp"
#include "sim/hardware_config.hpp"
#include "sim/simulate.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct BenchOptions {
  std::size_t ops = 1000000;
  std::uint64_t seed = 1;
  std::string hw = "configs/hw/trn3.yaml";
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void run_bench(const BenchOptions& o) {
  HardwareConfig hw = load_hardware(resolve_config_path(o.hw));
  if (hw.lnc < 2) throw InputError(o.hw + ": lnc: the benchmark needs a config with at least 2 simulated cores");
  auto t0 = std::chrono::steady_clock::now();
  ScheduleGraph g = random_dag(o.ops, 2, o.seed);
  double build_ms = ms_since(t0);
  auto t1 = std::chrono::steady_clock::now();
  validate_graph(g, hw);
  double validate_ms = ms_since(t1);
  auto t2 = std::chrono::steady_clock::now();
  RawRun raw = run_kernel(g, hw);
  double kernel_ms = ms_since(t2);
  std::uint64_t activations = raw.kernel_activations;
  auto t3 = std::chrono::steady_clock::now();
  SimResult r = summarize(g, hw, std::move(raw));
  double summary_ms = ms_since(t3);
  double total_ms = ms_since(t0);

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
  std::printf("benchmark: random DAG, %zu ops on 2 cores (%s), seed %llu\n", g.size(), hw.name.c_str(),
              static_cast<unsigned long long>(o.seed));
  std::printf("simulated time      %14.3f us\n", r.total_ps / 1e6);
  std::printf("build graph         %10.1f ms\n", build_ms);
  std::printf("validate            %10.1f ms\n", validate_ms);
  std::printf("kernel (SystemC)    %10.1f ms   %llu process activations (%.2f per op)\n", kernel_ms,
              static_cast<unsigned long long>(activations), double(activations) / g.size());
  std::printf("summarize           %10.1f ms\n", summary_ms);
  std::printf("simulated ops/s     %14.0f   (kernel only)\n", g.size() / (kernel_ms / 1000.0));
  std::printf("simulated ops/s     %14.0f   (validate + kernel + summarize)\n",
              g.size() / ((validate_ms + kernel_ms + summary_ms) / 1000.0));
  std::printf("end-to-end ops/s    %14.0f   (including building the graph)\n", g.size() / (total_ms / 1000.0));
  std::printf("peak memory         %14.1f MiB  = %.0f bytes per op (peak RSS / ops)\n", peak_bytes / 1048576.0,
              peak_bytes / g.size());
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto opts = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "Benchmark the simulator on a synthetic random DAG");
  sub->add_option("--ops", opts->ops, "number of ops")->capture_default_str()->check(CLI::Range(1ul, 100000000ul));
  sub->add_option("--seed", opts->seed, "random seed")->capture_default_str();
  sub->add_option("--hw", opts->hw, "hardware config YAML")->capture_default_str();
  sub->callback([opts] { run_bench(*opts); });
}

}  // namespace stasim::cli
