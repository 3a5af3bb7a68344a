// `stasim bench`: the simulator's own speed and memory on a synthetic random DAG (include/stasim/schedule.hpp).
// Prints figures; it is a benchmark, never a pass/fail test.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "stasim/io.hpp"
#include "stasim/schedule.hpp"
#include "stasim/weights.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct BenchOptions {
  std::size_t ops = 1000000;
  std::uint64_t seed = 1;
  std::string hw = "trn3";
  bool decode = false;
  std::string model = "qwen3-30b-a3b";
  std::string dataflow = "cardan";
  bool represent = false;
  RepresentBenchOptions representation;
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The decode step of a shipped model with one dataflow (fixed down schedule: one build and one simulation),
// every phase timed in this process.
void run_decode_bench(const BenchOptions& o) {
  DataflowRegistry registry;
  register_builtin(registry);
  const Dataflow& dataflow = registry.find(o.dataflow);
  auto t0 = std::chrono::steady_clock::now();
  HardwareConfig hw = load_hardware_config(o.hw);
  ModelSpec model = load_model(model_option("--model", o.model));
  Representation rep = dataflow.representation(8, 384, 256);
  DataflowOptions options;
  double load_ms = ms_since(t0);
  auto t1 = std::chrono::steady_clock::now();
  DecodeGraph decode = build_decode_step(model, model.deployment, rep, hw, options, dataflow.routed);
  double build_ms = ms_since(t1);
  auto t2 = std::chrono::steady_clock::now();
  validate_graph(decode.graph, hw);
  double validate_ms = ms_since(t2);
  auto t3 = std::chrono::steady_clock::now();
  RawRun raw = run_kernel(decode.graph, hw);
  double kernel_ms = ms_since(t3);
  auto t4 = std::chrono::steady_clock::now();
  SimResult r = summarize(decode.graph, hw, std::move(raw));
  double summary_ms = ms_since(t4);
  double total_ms = ms_since(t0);
  std::printf("benchmark: %s decode step, dataflow %s, %zu layers, %zu ops, TPOT %.3f us\n", model.name.c_str(),
              o.dataflow.c_str(), decode.layers.size(), decode.graph.size(), r.total_ps / 1e6);
  std::printf("load configs        %10.1f ms\n", load_ms);
  std::printf("build graph         %10.1f ms\n", build_ms);
  std::printf("validate            %10.1f ms\n", validate_ms);
  std::printf("kernel (SystemC)    %10.1f ms\n", kernel_ms);
  std::printf("summarize           %10.1f ms\n", summary_ms);
  std::printf("total wall          %10.1f ms   (target: at most 50 ms)\n", total_ms);
}

void run_bench(const BenchOptions& o) {
  if (o.decode) return run_decode_bench(o);
  if (o.represent) {
    RepresentBenchOptions r = o.representation;
    r.model = o.model;
    r.seed = o.seed;
    return run_represent_bench(r);
  }
  HardwareConfig hw = load_hardware_config(o.hw);
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
  std::printf("peak memory         %14.1f MiB  = %.0f bytes per op (peak RSS / ops; target: at most 200 at 5 M ops)\n",
              peak_bytes / 1048576.0, peak_bytes / g.size());
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto opts = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "Benchmark the simulator on a synthetic random DAG");
  sub->add_option("--ops", opts->ops, "number of ops")->capture_default_str()->check(CLI::Range(1ul, 100000000ul));
  sub->add_option("--seed", opts->seed, "random seed")->capture_default_str();
  sub->add_option("--hw", opts->hw, "hardware name (configs/hw/NAME.yaml) or YAML path; also of --decode")
      ->capture_default_str();
  sub->add_flag("--decode", opts->decode, "time a full decode step of a shipped model instead of the random DAG");
  sub->add_option("--model", opts->model, "model of --decode")->capture_default_str();
  sub->add_option("--dataflow", opts->dataflow, "dataflow of --decode")->capture_default_str();
  sub->add_flag("--represent", opts->represent,
                "time building the hybrid LR+VQ representation of one synthetic --model-shaped layer instead");
  sub->add_option("--d", opts->representation.d, "VQ block length of --represent")->capture_default_str();
  sub->add_option("--r", opts->representation.r, "LR rank of --represent")->capture_default_str();
  sub->add_option("--K", opts->representation.K, "code words of --represent")->capture_default_str();
  sub->add_option("--train-blocks", opts->representation.training_blocks,
                  "k-means training sample of --represent (0 = all blocks)")->capture_default_str();
  sub->add_option("--threads", opts->representation.threads, "threads of --represent (0 = all cores)")
      ->capture_default_str();
  sub->add_flag("--compare", opts->representation.compare,
                "with --represent: also build VQ-only and LR-only at the matched storage rate");
  sub->callback([opts] { run_bench(*opts); });
}

}  // namespace stasim::cli
