#include "workloads/synthetic_weights.hpp"

#include <cmath>
#include <vector>

#include "sim/core/input_error.hpp"
#include "sim/core/memory_budget.hpp"
#include "sim/core/number_text.hpp"
#include "workloads/parallel_chunks.hpp"
#include "workloads/seeded_random.hpp"
#include "workloads/tensor_value_limit.hpp"

namespace stasim {
namespace {

// Independent streams per (seed, projection, expert, part) without correlated starting states.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t x = seed;
  for (std::uint64_t v : {a, b, c}) {
    x += 0x9e3779b97f4a7c15ULL + v;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
  }
  return x;
}

// Standard normal by Box–Muller (written out so the values are the same with every standard library).
class GaussianStream {
 public:
  explicit GaussianStream(std::uint64_t seed) : random_(seed) {}
  float next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - random_.unit();  // (0, 1]
    const double u2 = random_.unit();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 6.283185307179586 * u2;
    spare_ = static_cast<float>(radius * std::sin(angle));
    has_spare_ = true;
    return static_cast<float>(radius * std::cos(angle));
  }
  Eigen::MatrixXf matrix(int rows, int cols, double scale) {
    Eigen::MatrixXf m(rows, cols);
    const float s = static_cast<float>(scale);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = s * next();
    return m;
  }

 private:
  SeededRandom random_;
  float spare_ = 0.0f;
  bool has_spare_ = false;
};

void require_positive(std::vector<std::string>& problems, const char* key, double value) {
  if (!(value > 0)) problems.push_back(std::string("synthetic.") + key + " must be > 0 (got " + std::to_string(value) + ")");
}
void require_non_negative(std::vector<std::string>& problems, const char* key, double value) {
  if (!(value >= 0)) problems.push_back(std::string("synthetic.") + key + " must be ≥ 0 (got " + std::to_string(value) + ")");
}

ProjectionWeights structured_projection(const SyntheticWeightsConfig& c, const std::string& name, int index) {
  const int H = c.hidden, I = c.intermediate;
  const double to_output = 1.0 / std::sqrt(static_cast<double>(H));
  // The basis shared by all experts of this projection: entries N(0, 1).
  GaussianStream shared(mix_seed(c.seed, index, 0xffffffff, 0));
  const Eigen::MatrixXf basis = shared.matrix(H, c.shared_rank, 1.0);
  ProjectionWeights projection;
  projection.name = name;
  std::vector<std::string> out_of_range(static_cast<std::size_t>(c.experts));  // per expert: its first bad element
  projection.experts.resize(c.experts);
  parallel_chunks(c.experts, 0, [&](std::int64_t e) {
    GaussianStream g(mix_seed(c.seed, index, static_cast<std::uint64_t>(e), 1));
    // Mixing entries N(0, 1/rank) so every part's entries have variance 1 before scaling.
    Eigen::MatrixXf w(H, I);
    w.setZero();
    if (c.shared_rank > 0) {
      Eigen::MatrixXf mixing = g.matrix(c.shared_rank, I, c.shared_scale / std::sqrt(double(c.shared_rank)));
      w.noalias() += basis * mixing;
    }
    if (c.expert_rank > 0) {
      Eigen::MatrixXf u = g.matrix(H, c.expert_rank, 1.0);
      Eigen::MatrixXf v = g.matrix(c.expert_rank, I, c.expert_scale / std::sqrt(double(c.expert_rank)));
      w.noalias() += u * v;
    }
    if (c.noise_scale > 0) w += g.matrix(H, I, c.noise_scale);
    w *= static_cast<float>(to_output);
    for (Eigen::Index i = 0; i < w.size(); ++i)
      if (!within_tensor_limit(w.data()[i])) {
        out_of_range[static_cast<std::size_t>(e)] = "synthetic weights: " + name + " of expert " + std::to_string(e) + ", element " + std::to_string(i) +
                         " is " + format_double("%g", w.data()[i]) + ", beyond ±1e6 (shared_scale " +
                         format_double("%g", c.shared_scale) + ", expert_scale " + format_double("%g", c.expert_scale) +
                         ", noise_scale " + format_double("%g", c.noise_scale) +
                         "; the low-rank fit's float sums would overflow: lower the scales)";
        break;
      }
    projection.experts[e] = std::move(w);
  });
  for (const std::string& problem : out_of_range)  // the lowest expert's, whatever order the threads ran in
    if (!problem.empty()) throw InputError(problem);
  return projection;
}

}  // namespace

std::vector<std::string> SyntheticWeightsConfig::problems() const {
  std::vector<std::string> p;
  require_positive(p, "hidden", hidden);
  require_positive(p, "intermediate", intermediate);
  require_positive(p, "experts", experts);
  require_non_negative(p, "shared_rank", shared_rank);
  require_non_negative(p, "expert_rank", expert_rank);
  require_non_negative(p, "shared_scale", shared_scale);
  require_non_negative(p, "expert_scale", expert_scale);
  require_non_negative(p, "noise_scale", noise_scale);
  if (p.empty()) {
    // Every expert's gate, up and down matrices as floats, estimated before any is generated.
    double matrices = (gated ? 2.0 : 1.0) + (with_down ? 1.0 : 0.0);
    std::string memory = memory_problem(double(experts) * matrices * double(hidden) * double(intermediate) * 4.0,
                                        "a synthetic layer of " + std::to_string(experts) + " experts x " +
                                            std::to_string(hidden) + " x " + std::to_string(intermediate));
    if (!memory.empty()) p.push_back(memory);
  }
  return p;
}

LayerWeights synthetic_layer_weights(const SyntheticWeightsConfig& config, int layer) {
  if (auto p = config.problems(); !p.empty()) throw InputError(p);
  LayerWeights weights;
  weights.layer = layer;
  weights.hidden = config.hidden;
  weights.intermediate = config.intermediate;
  const std::uint64_t layer_seed = mix_seed(config.seed, static_cast<std::uint64_t>(layer), 0, 0);
  SyntheticWeightsConfig c = config;
  c.seed = layer_seed;
  if (config.gated) weights.projections.push_back(structured_projection(c, "gate", 0));
  weights.projections.push_back(structured_projection(c, "up", 1));
  if (config.with_down) {
    ProjectionWeights down;
    down.name = "down";
    down.experts.resize(config.experts);
    parallel_chunks(config.experts, 0, [&](std::int64_t e) {
      GaussianStream g(mix_seed(layer_seed, 2, static_cast<std::uint64_t>(e), 3));
      down.experts[e] = g.matrix(config.intermediate, config.hidden, 1.0 / std::sqrt(double(config.intermediate)));
    });
    weights.projections.push_back(std::move(down));
  }
  return weights;
}

std::vector<std::string> SyntheticActivationsConfig::problems() const {
  std::vector<std::string> p;
  if (hidden <= 0) p.push_back("activations.hidden must be > 0 (got " + std::to_string(hidden) + ")");
  if (tokens <= 0) p.push_back("activations.tokens must be > 0 (got " + std::to_string(tokens) + ")");
  if (!(channel_spread >= 0)) p.push_back("activations.channel_spread must be ≥ 0");
  if (outlier_channels < 0 || outlier_channels > hidden)
    p.push_back("activations.outlier_channels must be in [0, hidden] (got " + std::to_string(outlier_channels) + ")");
  if (!(outlier_scale > 0)) p.push_back("activations.outlier_scale must be > 0");
  std::string memory = memory_problem(double(hidden) * double(tokens) * 4.0,
                                      std::to_string(tokens) + " synthetic activations of hidden " + std::to_string(hidden));
  if (!memory.empty()) p.push_back(memory);
  return p;
}

Eigen::MatrixXf synthetic_activations(const SyntheticActivationsConfig& config) {
  if (auto p = config.problems(); !p.empty()) throw InputError(p);
  GaussianStream scales_stream(mix_seed(config.seed, 0, 0, 0));
  Eigen::VectorXf scale(config.hidden);
  for (int i = 0; i < config.hidden; ++i)
    scale(i) = static_cast<float>(std::exp(config.channel_spread * scales_stream.next()));
  // Outlier channels: spread evenly (deterministic, no collisions).
  for (int k = 0; k < config.outlier_channels; ++k) {
    const int channel = static_cast<int>((static_cast<std::int64_t>(k) * config.hidden) / config.outlier_channels);
    scale(channel) *= static_cast<float>(config.outlier_scale);
  }
  GaussianStream tokens(mix_seed(config.seed, 1, 0, 0));
  Eigen::MatrixXf x = tokens.matrix(config.hidden, config.tokens, 1.0);
  Eigen::MatrixXf activations = scale.asDiagonal() * x;
  for (Eigen::Index i = 0; i < activations.size(); ++i)
    if (!within_tensor_limit(activations.data()[i]))
      throw InputError("synthetic activations: element " + std::to_string(i) + " is " +
                       format_double("%g", activations.data()[i]) + ", beyond ±1e6 (spread " +
                       format_double("%g", config.channel_spread) + ", outlier_scale " +
                       format_double("%g", config.outlier_scale) +
                       "; the low-rank fit's float sums would overflow: lower them)");
  return activations;
}

}  // namespace stasim
