#include "sim/studies/represent_bench.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "sim/studies/decode_run.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/parallel_chunks.hpp"
#include "workloads/representation_builder.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void print_row(const RepresentationQuality& q) {
  std::printf("%-14s %4d %5d %4d %12.4f %12.6f %9.1f\n", q.representation.c_str(), q.d, q.r, q.K,
              q.bits_per_weight, q.nmse, q.build_seconds);
}

}  // namespace

void run_represent_bench(const RepresentBenchOptions& o) {
  const ModelSpec model = load_model(resolve_model(o.model));
  SyntheticWeightsConfig wc;
  wc.hidden = static_cast<int>(model.hidden);
  wc.intermediate = static_cast<int>(model.expert_intermediate);
  wc.experts = static_cast<int>(model.experts);
  wc.gated = model.gated;
  wc.shared_rank = 64;
  wc.expert_rank = 8;
  wc.seed = o.seed;
  SyntheticActivationsConfig ac;
  ac.hidden = wc.hidden;
  ac.tokens = o.calibration_tokens;
  ac.seed = o.seed + 100;
  SyntheticActivationsConfig ec = ac;
  ec.tokens = o.evaluation_tokens;
  ec.seed = o.seed + 200;

  std::printf("benchmark: hybrid LR+VQ build of one synthetic %s-shaped layer: %d experts, H %d, I %d, %s\n",
              model.name.c_str(), wc.experts, wc.hidden, wc.intermediate, model.gated ? "gate and up" : "up");
  std::printf("(d, r, K) = (%lld, %lld, %lld), k-means on %lld sampled blocks then one full assignment, "
              "%d threads, %d calibration / %d evaluation tokens\n",
              static_cast<long long>(o.d), static_cast<long long>(o.r), static_cast<long long>(o.K),
              static_cast<long long>(o.training_blocks), resolve_threads(o.threads), o.calibration_tokens,
              o.evaluation_tokens);
  auto t = std::chrono::steady_clock::now();
  const LayerWeights weights = synthetic_layer_weights(wc, 0);
  const double generate_s = seconds_since(t);
  const Eigen::MatrixXf calibration = synthetic_activations(ac);
  const Eigen::MatrixXf evaluation = synthetic_activations(ec);

  BuildSettings settings;
  settings.representation = Representation::hybrid(o.d, o.r, o.K);
  settings.kmeans.training_points = o.training_blocks;
  settings.kmeans.max_iterations = o.iterations;
  settings.kmeans.seed = o.seed;
  settings.threads = o.threads;
  BuildTimings timings;
  t = std::chrono::steady_clock::now();
  const BuiltLayer built = build_representation(weights, calibration, settings, &timings);
  const double build_s = seconds_since(t);
  t = std::chrono::steady_clock::now();
  const double nmse = representation_nmse(weights, built, evaluation, o.threads);
  const double nmse_s = seconds_since(t);

  std::printf("generate weights    %8.1f s   (synthetic, not part of the build)\n", generate_s);
  std::printf("phase                  wall s    cpu s (all threads)\n");
  std::printf("k-means (B, J_e)    %8.1f %8.1f\n", timings.kmeans_seconds, timings.kmeans_cpu_seconds);
  std::printf("residuals           %8.1f %8.1f\n", timings.residual_seconds, timings.residual_cpu_seconds);
  std::printf("low-rank fit (D,C)  %8.1f %8.1f\n", timings.low_rank_seconds, timings.low_rank_cpu_seconds);
  const double cpu = timings.kmeans_cpu_seconds + timings.residual_cpu_seconds + timings.low_rank_cpu_seconds;
  std::printf("build total         %8.1f %8.1f   (target: at most 60 s wall on 2 cores; cpu/2 = %.1f s is the wall "
              "time on 2 otherwise idle cores)\n", build_s, cpu, cpu / 2.0);
  std::printf("NMSE evaluation     %8.1f s   hybrid NMSE %.6f\n", nmse_s, nmse);
  if (o.compare) {
    const std::vector<RepresentationQuality> rows = compare_representations(weights, calibration, evaluation, model, settings);
    std::printf("\n%-14s %4s %5s %4s %12s %12s %9s\n", "representation", "d", "r", "K", "bits/weight", "nmse",
                "build_s");
    for (const auto& q : rows) print_row(q);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak memory         %8.1f GiB\n", static_cast<double>(usage.ru_maxrss) / 1048576.0);
}

}  // namespace stasim
