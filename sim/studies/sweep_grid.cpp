#include "sim/studies/sweep_grid.hpp"

#include <filesystem>
#include <algorithm>
#include <functional>
#include <cstdio>
#include <sstream>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/request_axes.hpp"
#include "sim/studies/request_switches.hpp"
#include "sim/studies/sweep_table.hpp"
#include "sim/studies/sweep_vary_columns.hpp"

namespace stasim {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  if (!text.empty() && text.back() == sep) out.push_back("");
  return out;
}

bool parse_int(const std::string& text, std::int64_t& out) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    out = std::stoll(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

std::string describe(const YamlNode& node) {
  return node.is_null() ? "nothing" : node.is_sequence() ? "a list" : node.is_map() ? "a mapping" : "'" + node.scalar() + "'";
}

std::string scalar(const YamlNode& node, const std::string& where) {
  if (!node.is_scalar()) throw InputError(where + ": expected a single value, got " + describe(node));
  return node.scalar();
}

// `meaning` says what the number is, for the message when it is negative.
std::int64_t non_negative_int(const YamlNode& node, const std::string& where, const std::string& meaning) {
  std::int64_t value = 0;
  if (!node.is_scalar() || !parse_int(node.scalar(), value))
    throw InputError(where + ": expected an integer, got " + describe(node));
  if (value < 0) throw InputError(where + ": must not be negative (" + meaning + ")");
  return value;
}

// A switch of the request: true/false (also yes/no, on/off, 1/0, as YAML 1.1 spells booleans).
bool boolean(const YamlNode& node, const std::string& where) {
  const std::string v = node.is_scalar() ? node.scalar() : "";
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  throw InputError(where + ": expected true or false, got " + describe(node));
}

std::vector<std::string> string_list(const YamlNode& node, const std::string& where) {
  std::vector<std::string> out;
  if (node.is_scalar()) {
    for (const std::string& s : split(node.scalar(), ','))
      if (!s.empty()) out.push_back(s);
  } else if (node.is_sequence()) {
    for (const auto& item : node) out.push_back(scalar(item, where));
  } else {
    throw InputError(where + ": expected a list or a comma-separated string, got " + describe(node));
  }
  if (out.empty()) throw InputError(where + ": the list is empty");
  return out;
}

std::vector<std::int64_t> int_list(const YamlNode& node, const std::string& where) {
  if (node.is_scalar()) return parse_int_list(node.scalar(), where);
  std::vector<std::int64_t> out;
  for (const std::string& s : string_list(node, where)) {
    std::vector<std::int64_t> part = parse_int_list(s, where);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<std::int64_t> out;
  for (const std::string& item : split(text, ',')) {
    std::vector<std::string> parts = split(item, ':');
    std::int64_t a = 0, b = 0, step = 1;
    if (parts.size() == 1 && parse_int(parts[0], a)) {
      if (out.size() >= kMaxListValues)
        throw InputError(what + " '" + text + "': a list holds at most " + std::to_string(kMaxListValues) + " values");
      out.push_back(a);
      continue;
    }
    if (parts.size() != 3 || !parse_int(parts[0], a) || !parse_int(parts[1], b) || !parse_int(parts[2], step))
      throw InputError(what + " '" + text + "': '" + item + "' is neither an integer nor start:stop:step");
    if (step <= 0) throw InputError(what + " '" + text + "': the step of '" + item + "' must be positive");
    if (b < a) throw InputError(what + " '" + text + "': '" + item + "' has stop < start (an empty range)");
    // Counted in unsigned arithmetic: stop - start may not fit a signed 64-bit value, nor may start + step.
    std::uint64_t count = (static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a)) / static_cast<std::uint64_t>(step) + 1;
    if (count > kMaxListValues - out.size())
      throw InputError(what + " '" + text + "': '" + item + "' has " + std::to_string(count) +
                       " values; a list holds at most " + std::to_string(kMaxListValues));
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(a + static_cast<std::int64_t>(i * static_cast<std::uint64_t>(step)));
  }
  if (out.empty()) throw InputError(what + " '" + text + "': no value");
  return out;
}

std::pair<std::string, std::vector<std::string>> parse_vary(const std::string& text) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--vary '" + text + "': expected key.path=value1,value2");
  const std::string key = text.substr(0, eq);
  std::vector<std::string> values;
  for (const std::string& v : split(text.substr(eq + 1), ','))
    if (!v.empty()) values.push_back(is_option_axis(key) ? canonical_option_value(key, v) : v);
  if (values.empty()) throw InputError("--vary '" + text + "': no value");
  return {key, values};
}

SweepSpec load_sweep(const std::string& path) {
  YamlNode root = load_yaml_file(path);
  if (!root.is_map()) throw InputError(path + ": a sweep is a mapping (models, dataflows, d, r, K, ...)");
  static const std::vector<std::string> known = [] {
    std::vector<std::string> keys = {"models", "dataflows", "hw", "batch", "d", "r", "K", "vary", "layers",
                                     "down_schedule", "weights", "weights_layer", "set", "tp", "lnc", "context",
                                     "routes", "routing_seed"};
    for (const RequestSwitch& s : request_switches()) keys.push_back(s.name);  // the switches as booleans
    return keys;
  }();
  // A routes file named in the sweep is found next to it (the way a shipped sweep names its own files).
  auto beside = [&](const std::string& file) {
    std::filesystem::path f(file);
    return f.is_absolute() ? file : (std::filesystem::path(path).parent_path() / f).string();
  };
  SweepSpec spec;
  for (const auto& entry : root) {
    std::string key = entry.first.scalar();
    // The value's position, or the key's for an empty value (which has none of its own).
    std::string where = mark_of(entry.second.is_null() ? entry.first : entry.second, path) + ": " + key;
    const YamlNode& v = entry.second;
    {
      if (key == "models") spec.models = string_list(v, where);
      else if (key == "dataflows") spec.dataflows = string_list(v, where);
      else if (key == "hw") {
        spec.hw.clear();
        for (const std::string& name : string_list(v, where)) spec.hw += (spec.hw.empty() ? "" : ",") + name;
      }
      else if (key == "batch") spec.batch = int_list(v, where);
      else if (key == "d") spec.d = int_list(v, where);
      else if (key == "r") spec.r = int_list(v, where);
      else if (key == "K") spec.K = int_list(v, where);
      else if (key == "layers") spec.layers = non_negative_int(v, where, "0 = all layers");
      else if (key == "down_schedule") spec.down = scalar(v, where);
      else if (key == "weights") spec.weights = scalar(v, where);
      else if (key == "weights_layer") spec.weights_layer = non_negative_int(v, where, "a layer index");
      // run's request options, the base of every point (as --set, --tp, ..., --no-reuse on the command line).
      else if (key == "set") spec.base.sets = string_list(v, where);
      else if (key == "tp") spec.base.tp = non_negative_int(v, where, "a tensor-parallel degree");
      else if (key == "lnc") spec.base.lnc = non_negative_int(v, where, "physical cores per rank");
      else if (key == "context") spec.base.context = non_negative_int(v, where, "tokens in the KV cache");
      else if (key == "routes") spec.base.routes = beside(scalar(v, where));
      else if (key == "routing_seed") spec.base.routing_seed = static_cast<std::uint64_t>(non_negative_int(v, where, "a seed"));
      else if (const RequestSwitch* s = find_request_switch(key)) s->set_on(spec.base, boolean(v, where));
      else if (key == "vary") {
        if (!v.is_map()) throw InputError(where + ": expected a mapping of config key -> values");
        for (const auto& kv : v) {
          const std::string at = mark_of(kv.second.is_null() ? kv.first : kv.second, path);
          std::vector<std::string> values = string_list(kv.second, at + ": vary." + kv.first.scalar());
          if (is_option_axis(kv.first.scalar())) {
            try {
              for (std::string& value : values) value = canonical_option_value(kv.first.scalar(), value);
            } catch (const InputError& e) {
              throw InputError(at + ": vary." + kv.first.scalar() + ": " + e.what());
            }
          }
          spec.vary.emplace_back(kv.first.scalar(), values);
        }
      } else {
        std::string message = mark_of(entry.first, path) + ": " + key + ": unknown key";
        std::string near = nearest_match(key, known);
        if (!near.empty()) message += " (did you mean '" + near + "'?)";
        throw InputError(message);
      }
    }
  }
  return spec;
}

std::vector<std::string> hardware_names(const SweepSpec& spec) {
  std::vector<std::string> out;
  for (const std::string& name : split(spec.hw, ','))
    if (!name.empty()) out.push_back(name);
  return out;
}

std::string SweepPoint::vary_text() const {
  std::string out;
  for (const std::string& s : sets) out += (out.empty() ? "" : ";") + s;
  return out;
}

std::string SweepPoint::group() const {
  // Without weights the key is what it was before quality columns existed, so older outputs still resume.
  return "model=" + model + "|hw=" + hw + "|batch=" + std::to_string(batch) + "|layers=" + std::to_string(layers) +
         "|down=" + down + "|vary=" + vary_text() + (weights.empty() ? "" : "|weights=" + weights);
}

std::string SweepPoint::key() const {
  auto part = [](bool used, std::int64_t value) { return used ? std::to_string(value) : std::string("-"); };
  std::string drk = uses_drk() ? part(uses_d, d) + "/" + part(uses_r, r) + "/" + part(uses_K, K) : "-";
  return group() + "|dataflow=" + dataflow + "|drk=" + drk;
}

RunRequest SweepPoint::request() const {
  RunRequest req = base ? *base : RunRequest();
  req.model = model;
  req.hw = hw;
  req.dataflow = dataflow;
  req.d = d;
  req.r = r;
  req.K = K;
  req.batch = batch;
  req.layers = layers;
  req.down = down;
  for (const std::string& s : sets) {
    const std::size_t eq = s.find('=');
    if (is_option_axis(s.substr(0, eq))) apply_option(req, s.substr(0, eq), s.substr(eq + 1));
    else req.sets.push_back(s);  // after the base's --set values: the axis wins for its key
  }
  return req;
}

void check_vary_keys(const SweepSpec& spec) {
  std::vector<std::string> seen;
  for (const auto& [key, values] : spec.vary) {
    const std::vector<std::string>& fixed = sweep_columns();
    if (key == "hw")
      throw InputError("--vary hw: the hardware is an axis of its own: --hw trn2,trn3 (or hw: [trn2, trn3] in a sweep YAML)");
    if (std::find(fixed.begin(), fixed.end(), key) != fixed.end())
      throw InputError("--vary " + key + ": '" + key + "' is a column of the sweep output, not a config key");
    if (!is_vary_column_name(key))
      throw InputError("--vary " + key + ": a config key is a path of letters, digits, '_' and '-' joined by '.'");
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw InputError("--vary " + key + ": the key is varied twice; give all its values once (" + key + "=a,b)");
    seen.push_back(key);
    for (const std::string& v : values)
      if (v.find(';') != std::string::npos) throw InputError("--vary " + key + "=" + v + ": a value cannot hold ';'");
  }
}

namespace {

// `text` for a message: bytes outside printable ASCII as \xNN, so the message itself stays one clean line.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

}  // namespace

void check_grid_values(const SweepSpec& spec) {
  const char* why = " is given twice (each value is one point of the grid: two points with one key collide in the "
                    "output, and --resume and merge cannot tell them apart); give each value once";
  auto once = [&](const std::string& axis, const std::vector<std::string>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
      if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) != values.begin() + static_cast<std::ptrdiff_t>(i))
        throw InputError(axis + ": '" + values[i] + "'" + why);
  };
  auto once_int = [&](const std::string& axis, const std::vector<std::int64_t>& values) {
    std::vector<std::string> text;
    for (std::int64_t v : values) text.push_back(std::to_string(v));
    once(axis, text);
  };
  auto printable = [](const std::string& where, const std::string& text) {
    const std::string problem = unprintable(text);
    if (!problem.empty())
      throw InputError(where + ": '" + escaped(text) + "' holds " + problem + "; a point's key is a cell of the output that "
                       "--resume and merge read back, so it must be printable UTF-8");
  };
  for (const std::string& m : spec.models) printable("--models", m);
  for (const std::string& f : spec.dataflows) printable("--dataflows", f);
  const std::vector<std::string> hardware = hardware_names(spec);
  if (hardware.empty()) throw InputError("--hw '" + spec.hw + "': name at least one hardware config");
  for (const std::string& h : hardware) printable("--hw", h);
  once("--hw", hardware);
  printable("--down-schedule", spec.down);
  once("--models", spec.models);
  once("--dataflows", spec.dataflows);
  once_int("--batch", spec.batch);
  once_int("--d", spec.d);
  once_int("--r", spec.r);
  once_int("--K", spec.K);
  for (const auto& [key, values] : spec.vary) {
    std::vector<std::string> spelled;
    for (const std::string& v : values) {
      printable("--vary " + key, v);
      spelled.push_back(is_option_axis(key) ? canonical_option_value(key, v) : v);
    }
    once("--vary " + key, spelled);
  }
}

namespace {

struct DrkUse {
  bool d, r, K;
};

std::vector<SweepPoint> expand_with(const SweepSpec& spec, const std::function<DrkUse(const std::string&)>& uses) {
  check_vary_keys(spec);
  check_grid_values(spec);
  // Count first, saturating, so an oversized grid is refused before anything is allocated.
  auto times = [](std::size_t a, std::size_t b) { return b != 0 && a > kMaxGridPoints / b ? kMaxGridPoints + 1 : a * b; };
  std::size_t per_combination = 0;
  for (const std::string& dataflow : spec.dataflows) {
    const DrkUse u = uses(dataflow);
    per_combination += times(times(u.d ? spec.d.size() : 1, u.r ? spec.r.size() : 1), u.K ? spec.K.size() : 1);
  }
  const std::vector<std::string> hardware = hardware_names(spec);
  std::size_t count = times(times(times(spec.models.size(), hardware.size()), spec.batch.size()),
                            std::min(per_combination, kMaxGridPoints + 1));
  for (const auto& [key, values] : spec.vary) count = times(count, values.size());
  if (count > kMaxGridPoints)
    throw InputError("the grid has more than " + std::to_string(kMaxGridPoints) +
                     " points (models x hw x batch x dataflows x d x r x K x vary values); split it into several sweeps");
  // Every combination of the vary values, in order (the last key varies fastest).
  std::vector<std::vector<std::string>> assignments{{}};
  for (const auto& [key, values] : spec.vary) {
    std::vector<std::vector<std::string>> next;
    for (const auto& a : assignments)
      for (const std::string& v : values) {
        next.push_back(a);
        // A spec built in code (the Python module) gets its option values checked and spelled here.
        next.back().push_back(key + "=" + (is_option_axis(key) ? canonical_option_value(key, v) : v));
      }
    assignments = std::move(next);
  }
  // A parameter the dataflow does not read takes the list's first value (what the representation ignores).
  auto values = [](bool used, const std::vector<std::int64_t>& list) {
    return used ? list : std::vector<std::int64_t>{list.front()};
  };
  auto base = std::make_shared<const RunRequest>(spec.base);
  std::vector<SweepPoint> points;
  for (const std::string& model : spec.models)
    for (const std::string& hw : hardware)
      for (const auto& sets : assignments)
        for (std::int64_t batch : spec.batch)
          for (const std::string& dataflow : spec.dataflows) {
            const DrkUse u = uses(dataflow);
            SweepPoint p;
            p.model = model;
            p.dataflow = dataflow;
            p.hw = hw;
            p.batch = batch;
            p.sets = sets;
            p.base = base;
            p.layers = spec.layers;
            p.down = spec.down;
            p.uses_d = u.d;
            p.uses_r = u.r;
            p.uses_K = u.K;
            for (std::int64_t d : values(u.d, spec.d))
              for (std::int64_t r : values(u.r, spec.r))
                for (std::int64_t K : values(u.K, spec.K)) {
                  p.d = d;
                  p.r = r;
                  p.K = K;
                  p.index = points.size();
                  points.push_back(p);
                }
          }
  return points;
}

}  // namespace

std::vector<SweepPoint> expand(const SweepSpec& spec, const DataflowRegistry& registry) {
  return expand_with(spec, [&](const std::string& dataflow) {
    const Dataflow& f = registry.find(dataflow);
    return DrkUse{f.uses_d, f.uses_r, f.uses_K};
  });
}

std::vector<SweepPoint> expand(const SweepSpec& spec, bool (*drk_free)(const std::string&)) {
  return expand_with(spec, [&](const std::string& dataflow) {
    const bool all = !drk_free(dataflow);
    return DrkUse{all, all, all};
  });
}

}  // namespace stasim
