#include "sim/studies/kernel_validation.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/config_paths.hpp"

namespace stasim {
namespace {

const std::vector<std::string> kMetrics = {"total_ms", "interval_ns", "throughput_ratio"};

KernelArgs read_args(ConfigReader& r, const std::string& key) {
  KernelArgs args;
  if (!r.has(key)) return args;
  ConfigReader section = r.section(key);
  const YamlNode& node = section.node();
  if (!node.is_map()) return args;
  for (const auto& kv : node) {
    const std::string name = kv.first.scalar();
    std::int64_t value = 0;
    section.required(name, value);
    args[name] = value;
  }
  section.finish();
  return args;
}

std::string run_key(const std::string& kernel, const std::string& hw, const KernelArgs& args) {
  std::string key = kernel + "@" + hw;
  for (const auto& [name, value] : args) key += " " + name + "=" + std::to_string(value);
  return key;
}

struct KernelRun {
  std::unique_ptr<KernelProgram> program;
  SimResult result;
};

}  // namespace

double kernel_total_ms(const SimResult& r) {
  Picoseconds end = 0;
  for (const OpTiming& t : r.ops) end = std::max(end, t.end_ps);
  return static_cast<double>(end) / 1e9;
}

double scalar_interval_ns(const ScheduleGraph& g, const SimResult& r) {
  Picoseconds first = -1, last = -1;
  std::size_t n = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).engine != Engine::scalar) continue;
    const Picoseconds s = r.ops[v].start_ps;
    if (first < 0 || s < first) first = s;
    if (s > last) last = s;
    ++n;
  }
  return n < 2 ? 0 : static_cast<double>(last - first) / 1000.0 / static_cast<double>(n - 1);
}

double transferred_bytes_per_ns(const ScheduleGraph& g, const SimResult& r) {
  double bytes = 0;
  for (OpId v = 0; v < g.size(); ++v)
    if (g.op(v).engine == Engine::dma) bytes += static_cast<double>(g.op(v).bytes);
  const double ms = kernel_total_ms(r);
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

KernelReference load_kernel_reference(const std::string& path) {
  KernelReference ref;
  ref.file = path;
  Problems problems;
  ConfigReader top(load_yaml_file(path), path, "", problems);
  YamlNode list = top.list("targets", true);
  top.finish();
  problems.throw_if_any();
  std::set<std::string> ids;
  std::vector<std::string> kernels;
  for (const ShippedKernel& k : shipped_kernels()) kernels.push_back(k.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    ConfigReader r(list[i], path, "targets[" + std::to_string(i) + "]", problems);
    KernelTarget t;
    r.required("id", t.id).required("value", t.value).optional("source", t.source).optional("tolerance", t.tolerance)
        .optional("hw", t.hw).optional("kernel", t.kernel).optional("metric", t.metric).optional("ratio_of", t.ratio_of);
    t.args = read_args(r, "args");
    t.baseline_args = read_args(r, "baseline_args");
    r.finish();
    r.positive("value", t.value);
    r.within("tolerance", t.tolerance, 0, 10);
    if (!ids.insert(t.id).second) r.problem("id", "target '" + t.id + "' is listed twice");
    if (!t.ratio_of.empty()) {
      if (t.ratio_of.size() != 2) r.problem("ratio_of", "expected two target ids [a, b]");
      for (const std::string& id : t.ratio_of)
        if (!ids.count(id)) r.problem("ratio_of", "target '" + id + "' is not listed above this one");
    } else {
      if (t.hw.empty()) r.problem("hw", "missing (the hardware the kernel was measured on)");
      if (t.metric.empty()) r.problem("metric", "missing: " + std::string("total_ms, interval_ns or throughput_ratio"));
      else if (std::find(kMetrics.begin(), kMetrics.end(), t.metric) == kMetrics.end())
        r.problem("metric", "unknown metric '" + t.metric + "'; metrics: total_ms, interval_ns, throughput_ratio");
      if (t.metric == "throughput_ratio" && t.baseline_args.empty())
        r.problem("baseline_args", "a throughput_ratio needs the arguments of the run it is divided by");
      try {
        const ShippedKernel& k = shipped_kernel(t.kernel);
        kernel_args(k, t.args);
        kernel_args(k, t.baseline_args);
      } catch (const InputError& e) {
        r.problem("kernel", e.problems().front());
      }
    }
    ref.targets.push_back(t);
  }
  problems.throw_if_any();
  if (ref.targets.empty()) throw InputError(path + ": no targets");
  return ref;
}

std::vector<KernelCheck> check_kernels(const KernelReference& ref, const std::vector<std::string>& sets) {
  std::map<std::string, KernelRun> runs;
  auto run = [&](const std::string& kernel, const std::string& hw, const KernelArgs& args) -> KernelRun& {
    const ShippedKernel& k = shipped_kernel(kernel);
    const KernelArgs full = kernel_args(k, args);
    const std::string key = run_key(kernel, hw, full);
    auto it = runs.find(key);
    if (it != runs.end()) return it->second;
    KernelRun r;
    r.program = std::make_unique<KernelProgram>(load_hardware_config(hw, sets), kernel);
    k.build(*r.program, full);
    r.result = r.program->simulate();
    return runs.emplace(key, std::move(r)).first->second;
  };
  std::vector<KernelCheck> checks;
  std::map<std::string, double> predicted;
  for (const KernelTarget& t : ref.targets) {
    KernelCheck c;
    c.target = &t;
    if (!t.ratio_of.empty()) {
      c.predicted = predicted.at(t.ratio_of[1]) > 0 ? predicted.at(t.ratio_of[0]) / predicted.at(t.ratio_of[1]) : 0;
    } else {
      KernelRun& r = run(t.kernel, t.hw, t.args);
      if (t.metric == "total_ms") c.predicted = kernel_total_ms(r.result);
      else if (t.metric == "interval_ns") c.predicted = scalar_interval_ns(r.program->graph(), r.result);
      else {
        KernelRun& base = run(t.kernel, t.hw, t.baseline_args);
        const double b = transferred_bytes_per_ns(base.program->graph(), base.result);
        c.predicted = b > 0 ? transferred_bytes_per_ns(r.program->graph(), r.result) / b : 0;
      }
    }
    predicted[t.id] = c.predicted;
    c.error = c.predicted / t.value - 1;
    c.pass = std::isfinite(c.error) && std::fabs(c.error) <= t.tolerance + 1e-12;
    checks.push_back(c);
  }
  return checks;
}

void print_kernel_checks(std::ostream& out, const std::vector<KernelCheck>& checks) {
  char line[256];
  std::snprintf(line, sizeof line, "%-52s %10s %10s %8s %9s %s\n", "target", "measured", "predicted", "error",
                "tolerance", "result");
  out << line;
  int pass = 0;
  for (const KernelCheck& c : checks) {
    std::snprintf(line, sizeof line, "%-52s %10.4g %10.4g %+7.1f%% %8.0f%% %s\n", c.target->id.c_str(),
                  c.target->value, c.predicted, 100 * c.error, 100 * c.target->tolerance, c.pass ? "pass" : "MISS");
    out << line;
    pass += c.pass ? 1 : 0;
  }
  out << "\n" << pass << " of " << checks.size() << " kernel targets within tolerance\n";
}

nlohmann::json kernel_checks_json(const std::vector<KernelCheck>& checks) {
  nlohmann::json rows = nlohmann::json::array();
  for (const KernelCheck& c : checks) {
    const KernelTarget& t = *c.target;
    nlohmann::json row = {{"id", t.id},          {"source", t.source},       {"measured", t.value},
                          {"predicted", c.predicted}, {"error", c.error},    {"tolerance", t.tolerance},
                          {"pass", c.pass}};
    if (!t.ratio_of.empty()) row["ratio_of"] = t.ratio_of;
    else row.update({{"hw", t.hw}, {"kernel", t.kernel}, {"metric", t.metric}, {"args", t.args}});
    rows.push_back(row);
  }
  return {{"kernel_targets", rows}};
}

}  // namespace stasim
