// Top-k routing of M tokens: the expert ids and affinity weights a router produced, read from a file (YAML,
// JSON or CSV) or generated from a seed. Every RoutingTrace that leaves this file is valid: ids in [0, E),
// distinct within a token, finite weights, no ragged rows; bad input is an InputError naming file, row and value.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace stasim {

struct RoutingTrace {
  std::int64_t tokens = 0;   // M
  std::int64_t top_k = 0;    // k
  std::int64_t experts = 0;  // E
  // Row-major M x k: route id r = token * k + slot indexes both.
  std::vector<std::int32_t> expert_ids;
  std::vector<float> weights;

  std::int64_t routes() const { return tokens * top_k; }
  std::int32_t expert_of(std::int64_t route) const { return expert_ids[static_cast<size_t>(route)]; }
};

// How generate_routing draws experts: uniform over E, or Zipf-skewed (expert popularity ∝ 1 / (rank+1)^s over
// a seeded random ranking of the experts).
struct RoutingGeneratorConfig {
  std::int64_t tokens = 16;
  std::int64_t top_k = 8;
  std::int64_t experts = 128;
  std::string distribution = "uniform";  // "uniform" or "zipf"
  double zipf_exponent = 1.0;
  std::uint64_t seed = 0;
};

// Reads a routes file; the format follows the extension (.yaml/.yml, .json, .csv). `experts` is E.
//   YAML/JSON: {ids: [[e, e, ...], ...], weights: [[w, w, ...], ...]}  (weights optional: 1/k each)
//   CSV: one token per line, k expert ids then optionally k weights; '#' starts a comment line.
RoutingTrace read_routing_file(const std::string& path, std::int64_t experts);
// The same for text in memory; `format` is what the extension would be (yaml, yml, json, csv), `source` names
// the text in messages.
RoutingTrace routing_from_text(const std::string& text, const std::string& format, std::int64_t experts,
                               const std::string& source);

// Where row i of a routes file is ("routes.yaml:4:5"), computed only for the rows a message names (one string
// per row of a million-token file would take more memory than the routes themselves).
using RowLocator = std::function<std::string(std::size_t row)>;

// Builds a trace from explicit rows; `source` names where they came from in error messages, and `row_place`
// (when given) where each row is, so a message points at its line.
RoutingTrace routing_from_rows(const std::vector<std::vector<std::int64_t>>& ids,
                               const std::vector<std::vector<double>>& weights, std::int64_t experts,
                               const std::string& source, const RowLocator& row_place = {});

RoutingTrace generate_routing(const RoutingGeneratorConfig& config);

// Every problem of a trace at once (ids out of range, repeated experts in a token, non-finite or negative
// weights, sizes that do not match M x k); empty when valid.
std::vector<std::string> routing_problems(const RoutingTrace& trace, const std::string& source,
                                          const RowLocator& row_place = {});

}  // namespace stasim
