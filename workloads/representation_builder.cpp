#include "workloads/representation_builder.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "sim/core/input_error.hpp"
#include "workloads/matched_rate.hpp"
#include "workloads/parallel_chunks.hpp"

namespace stasim {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// The projections the representation compresses, in the order gate, up.
std::vector<const ProjectionWeights*> compressed_projections(const LayerWeights& weights, const Representation& rep) {
  std::vector<const ProjectionWeights*> out;
  const ProjectionWeights* gate = weights.find("gate");
  const ProjectionWeights* up = weights.find("up");
  if (gate && rep.gate) out.push_back(gate);
  if (up && rep.up) out.push_back(up);
  return out;
}

int expert_count(const LayerWeights& weights) {
  for (const auto& p : weights.projections)
    if (p.name != "down") return static_cast<int>(p.experts.size());
  return 0;
}

void check_inputs(const LayerWeights& weights, const std::vector<const ProjectionWeights*>& projections,
                  const Eigen::MatrixXf& calibration, const Representation& rep) {
  std::vector<std::string> problems;
  if (rep.kind != RepresentationKind::hybrid && rep.kind != RepresentationKind::vq_only &&
      rep.kind != RepresentationKind::lr_only)
    problems.push_back(std::string("representation ") + to_string(rep.kind) +
                       " cannot be built (only hybrid, vq_only and lr_only)");
  if (projections.empty()) problems.push_back("layer " + std::to_string(weights.layer) + ": no gate/up projection to compress");
  for (const ProjectionWeights* p : projections) {
    if (p->experts.empty()) problems.push_back(p->name + ": no experts");
    for (const auto& w : p->experts)
      if (w.rows() != weights.hidden || w.cols() != weights.intermediate) {
        problems.push_back(p->name + ": an expert is " + std::to_string(w.rows()) + "×" + std::to_string(w.cols()) +
                           ", expected H×I = " + std::to_string(weights.hidden) + "×" +
                           std::to_string(weights.intermediate));
        break;
      }
  }
  if (rep.has_lr() && calibration.rows() != weights.hidden)
    problems.push_back("calibration activations have " + std::to_string(calibration.rows()) +
                       " rows, the weights H = " + std::to_string(weights.hidden));
  if (rep.has_lr() && calibration.cols() < 1) problems.push_back("calibration activations have no tokens");
  // d | H, 2 ≤ K ≤ 256, 0 ≤ r ≤ min(H, I): the representation's own rules on the layer's shape.
  ModelSpec shape = with_layer_shape(ModelSpec{}, weights.hidden, weights.intermediate, std::max(1, expert_count(weights)));
  Deployment one_rank;
  one_rank.tp = 1;
  for (const auto& p : rep.problems(shape, one_rank)) problems.push_back(p);
  if (!problems.empty()) throw InputError(problems);
}

}  // namespace

int BuiltProjection::experts() const {
  return static_cast<int>(std::max(index_maps.size(), coefficients.size()));
}

Eigen::MatrixXf BuiltProjection::reconstruct(int expert) const {
  Eigen::MatrixXf w;
  if (d > 0) {
    w = reconstruct_vq(codebook, index_maps[expert]);
  } else {
    w = Eigen::MatrixXf::Zero(basis.rows(), coefficients[expert].cols());
  }
  if (r > 0) w.noalias() += basis * coefficients[expert];
  return w;
}

const BuiltProjection* BuiltLayer::find(const std::string& name) const {
  for (const auto& p : projections)
    if (p.name == name) return &p;
  return nullptr;
}

BuiltLayer build_representation(const LayerWeights& weights, const Eigen::MatrixXf& calibration_activations,
                                const BuildSettings& settings, BuildTimings* timings) {
  const Representation& rep = settings.representation;
  const std::vector<const ProjectionWeights*> sources = compressed_projections(weights, rep);
  check_inputs(weights, sources, calibration_activations, rep);
  BuiltLayer layer;
  layer.layer = weights.layer;
  layer.hidden = weights.hidden;
  layer.intermediate = weights.intermediate;
  layer.representation = rep;
  layer.projections.resize(sources.size());
  // The projections are independent: each phase runs them side by side with the threads split between them,
  // so the single-threaded parts (k-means++ draws, the eigen-solver) overlap. Results do not depend on the
  // split (every parallel step reduces in a fixed order).
  const int threads = resolve_threads(settings.threads);
  const int side_by_side = std::min<int>(threads, static_cast<int>(sources.size()));
  const int threads_each = std::max(1, threads / side_by_side);
  auto each_projection = [&](const std::function<void(std::size_t)>& fn) {
    parallel_chunks(static_cast<std::int64_t>(sources.size()), side_by_side, [&](std::int64_t i) { fn(i); });
  };
  const int H = weights.hidden;
  std::vector<std::vector<Eigen::MatrixXf>> residuals(sources.size());
  BuildTimings t;

  auto start = std::chrono::steady_clock::now();
  double cpu_start = cpu_seconds();
  each_projection([&](std::size_t i) {
    BuiltProjection& p = layer.projections[i];
    p.name = sources[i]->name;
    p.r = rep.has_lr() ? static_cast<int>(rep.r) : 0;
    p.basis = Eigen::MatrixXf::Zero(H, 0);
    if (!rep.has_vq()) return;
    KMeansConfig kmeans = settings.kmeans;
    kmeans.clusters = static_cast<int>(rep.K);
    kmeans.threads = threads_each;
    ProductQuantization pq = quantize_product(sources[i]->experts, static_cast<int>(rep.d), kmeans);
    p.d = static_cast<int>(rep.d);
    p.K = static_cast<int>(rep.K);
    p.codebook = std::move(pq.codebook);
    p.index_maps = std::move(pq.index_maps);
  });
  t.kmeans_seconds = seconds_since(start);
  t.kmeans_cpu_seconds = cpu_seconds() - cpu_start;

  if (rep.has_lr()) {
    start = std::chrono::steady_clock::now();
    cpu_start = cpu_seconds();
    each_projection([&](std::size_t i) {
      const BuiltProjection& p = layer.projections[i];
      if (!rep.has_vq()) return;  // LR-only fits the weights themselves
      residuals[i].resize(sources[i]->experts.size());
      parallel_chunks(static_cast<std::int64_t>(residuals[i].size()), threads_each, [&](std::int64_t e) {
        residuals[i][e] = sources[i]->experts[e] - reconstruct_vq(p.codebook, p.index_maps[e]);
      });
    });
    t.residual_seconds = seconds_since(start);
    t.residual_cpu_seconds = cpu_seconds() - cpu_start;

    start = std::chrono::steady_clock::now();
    cpu_start = cpu_seconds();
    each_projection([&](std::size_t i) {
      LowRankFitConfig config = settings.low_rank;
      config.rank = static_cast<int>(rep.r);
      config.threads = threads_each;
      LowRankFit fit = low_rank_fit(rep.has_vq() ? residuals[i] : sources[i]->experts, calibration_activations, config);
      residuals[i].clear();
      layer.projections[i].basis = std::move(fit.basis);
      layer.projections[i].coefficients = std::move(fit.coefficients);
    });
    t.low_rank_seconds = seconds_since(start);
    t.low_rank_cpu_seconds = cpu_seconds() - cpu_start;
  }
  if (timings) *timings = t;
  return layer;
}

double representation_nmse(const LayerWeights& weights, const BuiltLayer& built,
                           const Eigen::MatrixXf& evaluation_activations, int threads) {
  if (evaluation_activations.rows() != weights.hidden)
    throw InputError("evaluation activations have " + std::to_string(evaluation_activations.rows()) +
                     " rows, the weights H = " + std::to_string(weights.hidden));
  const Eigen::MatrixXf& X = evaluation_activations;
  double error = 0.0;
  double signal = 0.0;
  for (const BuiltProjection& p : built.projections) {
    const ProjectionWeights* source = weights.find(p.name);
    if (!source || static_cast<int>(source->experts.size()) != p.experts())
      throw InputError("NMSE: the weights have no " + p.name + " projection with " + std::to_string(p.experts()) + " experts");
    const Eigen::MatrixXf Z = p.r > 0 ? Eigen::MatrixXf(p.basis.transpose() * X) : Eigen::MatrixXf();  // Dᵀ X
    std::vector<double> part_error(source->experts.size());
    std::vector<double> part_signal(source->experts.size());
    parallel_chunks(static_cast<std::int64_t>(source->experts.size()), threads, [&](std::int64_t e) {
      // (Ŵ_e − W_e)ᵀ X = Q_eᵀ X + C_eᵀ (Dᵀ X) − W_eᵀ X, without forming D C_e (H×r×I per expert).
      const Eigen::MatrixXf exact = source->experts[e].transpose() * X;
      Eigen::MatrixXf difference = -exact;
      if (p.d > 0) difference.noalias() += reconstruct_vq(p.codebook, p.index_maps[e]).transpose() * X;
      if (p.r > 0) difference.noalias() += p.coefficients[e].transpose() * Z;
      part_error[e] = difference.cast<double>().squaredNorm();
      part_signal[e] = exact.cast<double>().squaredNorm();
    });
    for (std::size_t e = 0; e < part_error.size(); ++e) {
      error += part_error[e];
      signal += part_signal[e];
    }
  }
  return signal > 0.0 ? error / signal : 0.0;
}

std::vector<RepresentationQuality> compare_representations(const LayerWeights& weights,
                                                           const Eigen::MatrixXf& calibration_activations,
                                                           const Eigen::MatrixXf& evaluation_activations,
                                                           const ModelSpec& model, const BuildSettings& settings,
                                                           BuiltLayer* hybrid_out) {
  const Representation& hybrid = settings.representation;
  if (hybrid.kind != RepresentationKind::hybrid || hybrid.r <= 0)
    throw InputError("compare: the reference representation must be a hybrid with r > 0 (got " + hybrid.describe() + ")");
  const ModelSpec shape = with_layer_shape(model, weights.hidden, weights.intermediate, expert_count(weights));
  std::vector<std::pair<std::string, Representation>> rows = {
      {"hybrid", hybrid}, {"vq_only", matched_vq_only(hybrid, shape)}, {"lr_only", matched_lr_only(hybrid, shape)}};
  std::vector<RepresentationQuality> out;
  for (const auto& [name, rep] : rows) {
    BuildSettings s = settings;
    s.representation = rep;
    const auto start = std::chrono::steady_clock::now();
    const BuiltLayer built = build_representation(weights, calibration_activations, s);
    RepresentationQuality q;
    q.build_seconds = seconds_since(start);
    q.representation = name;
    q.spec = rep;
    q.d = rep.has_vq() ? static_cast<int>(rep.d) : 0;
    q.r = rep.has_lr() ? static_cast<int>(rep.r) : 0;
    q.K = rep.has_vq() ? static_cast<int>(rep.K) : 0;
    q.bits_per_weight = rep.bits_per_weight(shape);
    q.nmse = representation_nmse(weights, built, evaluation_activations, settings.threads);
    out.push_back(q);
    if (hybrid_out && name == "hybrid") *hybrid_out = built;
  }
  return out;
}

}  // namespace stasim
