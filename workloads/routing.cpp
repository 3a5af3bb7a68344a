#include "workloads/routing.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/core/json_input.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/memory_budget.hpp"
#include "workloads/seeded_random.hpp"
#include "sim/core/number_text.hpp"

namespace stasim {
namespace {

std::string extension_of(const std::string& path) {
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// Parses a whole string as a number; false on trailing text.
bool parse_int(const std::string& text, std::int64_t& out) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used, 10);
    if (used != text.size()) return false;
    out = v;
    return true;
  } catch (...) {
    return false;
  }
}

bool parse_double(const std::string& text, double& out) {
  try {
    size_t used = 0;
    double v = text_to_double(text, &used);
    if (used != text.size()) return false;
    out = v;
    return true;
  } catch (...) {
    // std::stod throws out_of_range for overflow; report it as a non-finite weight.
    if (!text.empty()) {
      out = HUGE_VAL;
      return text.find_first_not_of("+-0123456789.eE") == std::string::npos;
    }
    return false;
  }
}

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

// Rows of numbers kept flat (row i is values[begin[i] .. begin[i + 1])): a vector per row of a million-token
// file costs more than the numbers in it.
template <class T>
struct FlatRows {
  std::vector<T> values;
  std::vector<std::size_t> begin{0};
  std::size_t rows() const { return begin.size() - 1; }
  std::size_t size(std::size_t i) const { return begin[i + 1] - begin[i]; }
  T at(std::size_t i, std::size_t j) const { return values[begin[i] + j]; }
  void end_row() { begin.push_back(values.size()); }
  bool empty() const { return rows() == 0; }
};

RoutingTrace routing_from_flat(const FlatRows<std::int64_t>& ids, const FlatRows<double>& weights, std::int64_t experts,
                               const std::string& source, const RowLocator& row_place);

RoutingTrace read_yaml(const std::string& text, const std::string& path, std::int64_t experts) {
  FlatRows<std::int64_t> ids;
  FlatRows<double> weights;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> marks;  // line and column of each id row
  {
    const YamlNode root = parse_yaml_text(text, path);
    Problems problems;
    const std::vector<std::string> keys = {"ids", "weights"};
    for (const auto& kv : root) {
      std::string key = kv.first.scalar();
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      std::string near = nearest_match(key, keys);
      problems.add(mark_of(kv.first, path) + ": " + key + ": unknown key" +
                   (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    if (!root["ids"]) problems.add(path + ": missing required key 'ids' (a list of per-token expert-id lists)");
    problems.throw_if_any();
    auto read_rows = [&](const YamlNode& list, const std::string& key, auto& rows, auto parse) {
      if (!list.is_sequence()) {
        problems.add(mark_of(list, path) + ": " + key + ": expected a list of rows");
        return;
      }
      rows.begin.reserve(list.size() + 1);
      for (size_t i = 0; i < list.size(); ++i) {
        const YamlNode row = list[i];
        if (!row.is_sequence()) {
          problems.add(mark_of(row, path) + ": " + key + "[" + std::to_string(i) + "]: expected a list");
          rows.end_row();
          continue;
        }
        for (size_t j = 0; j < row.size(); ++j) {
          typename decltype(rows.values)::value_type v{};
          if (!row[j].is_scalar() || !parse(row[j].scalar(), v)) {
            problems.add(mark_of(row[j], path) + ": " + key + "[" + std::to_string(i) + "][" + std::to_string(j) +
                         "]: not a number: '" + (row[j].is_scalar() ? row[j].scalar() : std::string("?")) + "'");
          }
          rows.values.push_back(v);
        }
        rows.end_row();
      }
    };
    read_rows(root["ids"], "ids", ids, parse_int);
    if (root["weights"]) read_rows(root["weights"], "weights", weights, parse_double);
    problems.throw_if_any();
    for (const auto& row : root["ids"]) marks.emplace_back(row.line(), row.column());
  }  // the document is freed here: the trace is built from the flat rows alone
  return routing_from_flat(ids, weights, experts, path, [&](std::size_t i) {
    return path + ":" + std::to_string(marks.at(i).first + 1) + ":" + std::to_string(marks.at(i).second + 1);
  });
}

RoutingTrace read_json(const std::string& text, const std::string& path, std::int64_t experts) {
  nlohmann::json doc;
  try {
    doc = parse_json_input(text, path);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": malformed JSON: " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    // The parser rejects a literal like 1e999 this way: to the user it is a non-finite value.
    throw InputError(path + ": a number is not finite (it overflows a double): " + e.what());
  }
  if (!doc.is_object()) throw InputError(path + ": expected a JSON object with 'ids' (and optionally 'weights')");
  Problems problems;
  const std::vector<std::string> keys = {"ids", "weights"};
  for (const auto& item : doc.items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
    std::string near = nearest_match(item.key(), keys);
    problems.add(path + ": " + item.key() + ": unknown key" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  if (!doc.contains("ids")) problems.add(path + ": missing required key 'ids'");
  problems.throw_if_any();

  FlatRows<std::int64_t> ids;
  FlatRows<double> weights;
  auto read_rows = [&](const nlohmann::json& list, const std::string& key, auto& rows, bool integer) {
    if (!list.is_array()) {
      problems.add(path + ": " + key + ": expected an array of rows");
      return;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      auto& values = rows.values;
      if (!list[i].is_array()) {
        problems.add(path + ": " + key + "[" + std::to_string(i) + "]: expected an array");
      } else {
        for (size_t j = 0; j < list[i].size(); ++j) {
          const auto& v = list[i][j];
          bool ok = integer ? v.is_number_integer() : v.is_number();
          if (!ok) {
            problems.add(path + ": " + key + "[" + std::to_string(i) + "][" + std::to_string(j) +
                         "]: expected " + (integer ? "an integer" : "a number") + ", got " + v.dump());
            values.push_back(0);
          } else {
            values.push_back(v.get<typename std::decay_t<decltype(values)>::value_type>());
          }
        }
      }
      rows.end_row();
    }
  };
  read_rows(doc["ids"], "ids", ids, true);
  if (doc.contains("weights")) read_rows(doc["weights"], "weights", weights, false);
  problems.throw_if_any();
  return routing_from_flat(ids, weights, experts, path, {});
}

RoutingTrace read_csv(const std::string& contents, const std::string& path, std::int64_t experts) {
  std::istringstream in(contents);
  Problems problems;
  FlatRows<std::int64_t> ids;
  FlatRows<double> weights;
  std::string line;
  int line_number = 0;
  size_t fields_per_row = 0;
  std::vector<std::uint32_t> lines;  // the line of each data row
  while (std::getline(in, line)) {
    ++line_number;
    std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream stream(text);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(trim(field));
    if (!text.empty() && text.back() == ',') fields.push_back("");
    const std::string where = path + ":" + std::to_string(line_number);
    if (fields_per_row == 0) {
      fields_per_row = fields.size();
    } else if (fields.size() != fields_per_row) {
      problems.add(where + ": ragged row: " + std::to_string(fields.size()) + " fields, but the first row has " +
                   std::to_string(fields_per_row));
      continue;
    }
    // Either k ids, or k ids followed by k weights: decided by whether the row parses as integers throughout.
    std::vector<std::int64_t> row_ids;
    std::vector<double> row_weights;
    bool has_weights = false;
    {
      bool all_int = true;
      for (const auto& f : fields) {
        std::int64_t v;
        if (!parse_int(f, v)) all_int = false;
      }
      has_weights = !all_int;
    }
    if (has_weights && fields.size() % 2 != 0) {
      problems.add(where + ": a row with weights needs k ids then k weights (an even number of fields), got " +
                   std::to_string(fields.size()));
      continue;
    }
    size_t k = has_weights ? fields.size() / 2 : fields.size();
    for (size_t j = 0; j < k; ++j) {
      std::int64_t v = 0;
      if (!parse_int(fields[j], v))
        problems.add(where + ": field " + std::to_string(j + 1) + ": expert id '" + fields[j] + "' is not an integer");
      row_ids.push_back(v);
    }
    for (size_t j = k; has_weights && j < fields.size(); ++j) {
      double v = 0;
      if (!parse_double(fields[j], v))
        problems.add(where + ": field " + std::to_string(j + 1) + ": weight '" + fields[j] + "' is not a number");
      row_weights.push_back(v);
    }
    ids.values.insert(ids.values.end(), row_ids.begin(), row_ids.end());
    ids.end_row();
    lines.push_back(static_cast<std::uint32_t>(line_number));
    if (has_weights) {
      weights.values.insert(weights.values.end(), row_weights.begin(), row_weights.end());
      weights.end_row();
    }
  }
  problems.throw_if_any();
  if (!weights.empty() && weights.rows() != ids.rows())
    throw InputError(path + ": some rows carry weights and some do not; give weights on every row or on none");
  // Later messages say "file:line: row i": data rows counted from 0, comment and blank lines skipped.
  return routing_from_flat(ids, weights, experts, path,
                           [&](std::size_t i) { return path + ":" + std::to_string(lines.at(i)); });
}

}  // namespace

namespace {

RoutingTrace routing_from_flat(const FlatRows<std::int64_t>& ids, const FlatRows<double>& weights, std::int64_t experts,
                               const std::string& source, const RowLocator& row_place) {
  auto row_at = [&](size_t i) { return (row_place ? row_place(i) : source) + ": row " + std::to_string(i); };
  Problems problems;
  if (experts <= 0) problems.add(source + ": number of experts must be positive, got " + std::to_string(experts));
  if (ids.empty()) problems.add(source + ": no tokens (the id list is empty)");
  problems.throw_if_any();
  const size_t k = ids.size(0);
  if (k == 0) problems.add(source + ": row 0 has no expert ids");
  for (size_t i = 0; i < ids.rows(); ++i) {
    if (ids.size(i) != k)
      problems.add(source + ": ragged rows: row " + std::to_string(i) + " has " + std::to_string(ids.size(i)) +
                   " expert ids, row 0 has " + std::to_string(k));
  }
  if (!weights.empty()) {
    if (weights.rows() != ids.rows())
      problems.add(source + ": " + std::to_string(weights.rows()) + " weight rows for " + std::to_string(ids.rows()) +
                   " id rows");
    for (size_t i = 0; i < weights.rows(); ++i) {
      if (weights.size(i) != k)
        problems.add(source + ": ragged rows: weight row " + std::to_string(i) + " has " +
                     std::to_string(weights.size(i)) + " values, expected k = " + std::to_string(k));
    }
  }
  problems.throw_if_any();

  RoutingTrace trace;
  trace.tokens = static_cast<std::int64_t>(ids.rows());
  trace.top_k = static_cast<std::int64_t>(k);
  trace.experts = experts;
  trace.expert_ids.reserve(ids.values.size());
  trace.weights.reserve(ids.values.size());
  Problems range_problems;
  for (size_t i = 0; i < ids.rows(); ++i) {
    for (size_t j = 0; j < k; ++j) {
      std::int64_t e = ids.at(i, j);
      // Range is checked here, before narrowing to int32, so a huge id is reported as written.
      if (e < 0 || e >= experts) {
        range_problems.add(row_at(i) + " slot " + std::to_string(j) + ": expert id " + std::to_string(e) +
                           " is outside [0, " + std::to_string(experts) + ")");
        e = 0;
      }
      trace.expert_ids.push_back(static_cast<std::int32_t>(e));
      trace.weights.push_back(weights.empty() ? 1.0f / static_cast<float>(k) : static_cast<float>(weights.at(i, j)));
    }
  }
  range_problems.throw_if_any();
  Problems all;
  for (std::string& p : routing_problems(trace, source, row_place)) all.add(std::move(p));
  // Non-finite doubles that became finite floats would slip through; check the values as written too.
  for (size_t i = 0; i < weights.rows(); ++i)
    for (size_t j = 0; j < k; ++j)
      if (!std::isfinite(weights.at(i, j)) && std::isfinite(trace.weights[i * k + j]))
        all.add(row_at(i) + " slot " + std::to_string(j) + ": weight " + std::to_string(weights.at(i, j)) +
                " is not finite");
  all.throw_if_any();
  return trace;
}

}  // namespace

RoutingTrace routing_from_rows(const std::vector<std::vector<std::int64_t>>& ids,
                               const std::vector<std::vector<double>>& weights, std::int64_t experts,
                               const std::string& source, const RowLocator& row_place) {
  FlatRows<std::int64_t> flat_ids;
  for (const auto& row : ids) {
    flat_ids.values.insert(flat_ids.values.end(), row.begin(), row.end());
    flat_ids.end_row();
  }
  FlatRows<double> flat_weights;
  for (const auto& row : weights) {
    flat_weights.values.insert(flat_weights.values.end(), row.begin(), row.end());
    flat_weights.end_row();
  }
  return routing_from_flat(flat_ids, flat_weights, experts, source, row_place);
}

std::vector<std::string> routing_problems(const RoutingTrace& trace, const std::string& source,
                                          const RowLocator& row_place) {
  Problems problems;
  const size_t routes = static_cast<size_t>(trace.routes());
  if (trace.tokens <= 0 || trace.top_k <= 0) problems.add(source + ": tokens and top_k must be positive");
  if (trace.top_k > trace.experts)
    problems.add(source + ": top_k " + std::to_string(trace.top_k) + " exceeds the number of experts " +
                 std::to_string(trace.experts));
  if (!problems.empty()) return problems.list();
  if (trace.expert_ids.size() != routes || trace.weights.size() != routes) {
    problems.add(source + ": expected " + std::to_string(routes) + " ids and weights (M x k)");
    return problems.list();
  }
  std::vector<std::pair<std::int32_t, std::int64_t>> sorted;  // (expert, slot) of one token
  for (std::int64_t t = 0; t < trace.tokens; ++t) {
    auto where = [&](std::int64_t s) {
      return (row_place ? row_place(static_cast<size_t>(t)) : source) + ": row " + std::to_string(t) + " slot " +
             std::to_string(s);
    };
    sorted.clear();
    for (std::int64_t s = 0; s < trace.top_k; ++s) {
      const size_t r = static_cast<size_t>(t * trace.top_k + s);
      const std::int32_t e = trace.expert_ids[r];
      if (e < 0 || e >= trace.experts)
        problems.add(where(s) + ": expert id " + std::to_string(e) + " is outside [0, " +
                     std::to_string(trace.experts) + ")");
      sorted.emplace_back(e, s);
      const float w = trace.weights[r];
      if (!std::isfinite(w)) problems.add(where(s) + ": weight " + std::to_string(w) + " is not finite");
      else if (w < 0) problems.add(where(s) + ": weight " + std::to_string(w) + " is negative");
    }
    // A repeat inside one token, found in O(k log k) (k can be large in a hostile file).
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i].first == sorted[i - 1].first)
        problems.add(where(sorted[i].second) + ": expert " + std::to_string(sorted[i].first) +
                     " appears twice in this token's top-k");
  }
  std::vector<std::string> all = problems.list();
  if (problems.count() > all.size())
    all.push_back("(and " + std::to_string(problems.count() - all.size()) + " more problems)");
  return all;
}

RoutingTrace read_routing_file(const std::string& path, std::int64_t experts) {
  const std::string ext = extension_of(path);
  if (ext != "yaml" && ext != "yml" && ext != "json" && ext != "csv")
    throw InputError(path + ": unknown routes file type '." + ext + "' (expected .yaml, .yml, .json or .csv)");
  return routing_from_text(read_input_file(path, "the routes file"), ext, experts, path);
}

RoutingTrace routing_from_text(const std::string& text, const std::string& format, std::int64_t experts,
                               const std::string& source) {
  if (format == "yaml" || format == "yml") return read_yaml(text, source, experts);
  if (format == "json") return read_json(text, source, experts);
  if (format == "csv") return read_csv(text, source, experts);
  throw InputError(source + ": unknown routes format '" + format + "' (expected yaml, yml, json or csv)");
}

RoutingTrace generate_routing(const RoutingGeneratorConfig& config) {
  Problems problems;
  if (config.tokens <= 0) problems.add("--tokens must be positive, got " + std::to_string(config.tokens));
  if (config.experts <= 0) problems.add("--experts must be positive, got " + std::to_string(config.experts));
  if (config.top_k <= 0 || config.top_k > config.experts)
    problems.add("--top-k must be in [1, experts], got " + std::to_string(config.top_k));
  if (config.distribution != "uniform" && config.distribution != "zipf")
    problems.add("--distribution must be 'uniform' or 'zipf', got '" + config.distribution + "'");
  if (!(config.zipf_exponent >= 0) || !std::isfinite(config.zipf_exponent))
    problems.add("--zipf-exponent must be a finite non-negative number, got " + std::to_string(config.zipf_exponent));
  problems.throw_if_any();
  // Estimated before generating: 8 bytes per route (id and weight) plus the per-expert tables, and the work of
  // walking the experts once per drawn route (2^34 steps is about a minute).
  const double routes = double(config.tokens) * double(config.top_k);
  require_memory(routes * 8.0 + double(config.experts) * 16.0,
                 std::to_string(config.tokens) + " tokens x top-" + std::to_string(config.top_k) + " over " +
                     std::to_string(config.experts) + " experts");
  if (routes * double(config.experts) > double(std::int64_t{1} << 34))
    throw InputError("--tokens x --top-k x --experts = " + std::to_string(static_cast<long long>(routes)) + " x " +
                     std::to_string(config.experts) + " generation steps; the limit is 2^34 (about a minute)");

  SeededRandom random(config.seed);
  const size_t experts = static_cast<size_t>(config.experts);
  // Popularity per expert: uniform, or Zipf over a seeded ranking so the popular experts are not always 0, 1, ...
  std::vector<double> popularity(experts, 1.0);
  if (config.distribution == "zipf") {
    std::vector<size_t> ranking(experts);
    for (size_t i = 0; i < experts; ++i) ranking[i] = i;
    for (size_t i = experts - 1; i > 0; --i) std::swap(ranking[i], ranking[random.below(i + 1)]);
    for (size_t rank = 0; rank < experts; ++rank)
      popularity[ranking[rank]] = 1.0 / std::pow(static_cast<double>(rank + 1), config.zipf_exponent);
  }

  RoutingTrace trace;
  trace.tokens = config.tokens;
  trace.top_k = config.top_k;
  trace.experts = config.experts;
  std::vector<bool> taken(experts);
  for (std::int64_t t = 0; t < config.tokens; ++t) {
    std::fill(taken.begin(), taken.end(), false);
    double remaining = 0;
    for (size_t e = 0; e < experts; ++e) remaining += popularity[e];
    std::vector<float> draws;
    for (std::int64_t s = 0; s < config.top_k; ++s) {
      // Sampling without replacement: walk the cumulative popularity of the experts not yet taken.
      double target = random.unit() * remaining;
      size_t chosen = experts;
      double cumulative = 0;
      for (size_t e = 0; e < experts; ++e) {
        if (taken[e]) continue;
        cumulative += popularity[e];
        chosen = e;
        if (target < cumulative) break;
      }
      taken[chosen] = true;
      remaining -= popularity[chosen];
      trace.expert_ids.push_back(static_cast<std::int32_t>(chosen));
      // (0, 1]: a zero affinity would make a route invisible in the combine.
      draws.push_back(static_cast<float>(1.0 - random.unit()));
    }
    float sum = 0;
    for (float d : draws) sum += d;
    for (float d : draws) trace.weights.push_back(d / sum);
  }
  return trace;
}

}  // namespace stasim
