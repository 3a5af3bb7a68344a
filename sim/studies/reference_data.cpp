#include "sim/studies/reference_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {
namespace {

struct Variant {
  bool reuse = true, batch_gathers = true;
};

struct NamedRepresentation {
  std::int64_t d = 0, r = 0;
};

const std::vector<std::string> kEngines = {"tensor", "vector", "scalar", "gpsimd"};
const std::vector<std::string> kCriticalEngines = {"tensor", "vector", "scalar", "gpsimd", "dma", "collective"};

// The metric of a target: `metric:` when given, else the last component of the id
// ("ablation.reuse.reduction_vs_previous" -> reduction_vs_previous). A "_by_rate" suffix only says the values
// are keyed by representation.
bool parse_metric(std::string metric, ReferenceTarget& t) {
  const std::string by_rate = "_by_rate";
  if (metric.size() > by_rate.size() && metric.compare(metric.size() - by_rate.size(), by_rate.size(), by_rate) == 0)
    metric.resize(metric.size() - by_rate.size());
  if (metric == "tpot_ms") { t.kind = TargetKind::tpot_ms; return true; }
  if (metric == "reduction_vs_dense") { t.kind = TargetKind::reduction_vs_dense; return true; }
  if (metric == "reduction_vs_previous") { t.kind = TargetKind::reduction_vs_previous; return true; }
  if (metric == "hbm_read_change") { t.kind = TargetKind::hbm_read_change; return true; }
  if (metric == "step_time_ratio") { t.kind = TargetKind::step_time_ratio; return true; }
  if (metric == "attention_share") { t.kind = TargetKind::attention_share; return true; }
  if (metric == "dma_active_us") { t.kind = TargetKind::active_us; t.engine = "dma"; return true; }
  for (const std::string& e : kEngines) {
    if (metric == e + "_active_us") { t.kind = TargetKind::active_us; t.engine = e; return true; }
    if (metric == e + "_instructions") { t.kind = TargetKind::instructions; t.engine = e; return true; }
  }
  return false;
}

std::vector<std::string> known_metrics() {
  std::vector<std::string> m = {"tpot_ms",         "reduction_vs_dense", "reduction_vs_previous", "hbm_read_change",
                                "step_time_ratio", "attention_share",    "dma_active_us"};
  for (const std::string& e : kEngines) {
    m.push_back(e + "_active_us");
    m.push_back(e + "_instructions");
  }
  return m;
}

bool is_pair_kind(TargetKind k) { return k == TargetKind::hbm_read_change || k == TargetKind::step_time_ratio; }

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g%%", share * 100);
  return text;
}

std::string plain(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

// Everything of one file that entries refer to by name, and the reading of the run an entry needs.
class EntryReader {
 public:
  EntryReader(const DataflowRegistry& registry) : dataflows_(registry.names()) {}

  std::map<std::string, Variant> variants;
  std::map<std::string, NamedRepresentation> representations;

  // Applies a variant or named representation to `run`; false when `name` is neither.
  bool apply_name(const std::string& name, ReferenceRun& run) const {
    if (auto v = variants.find(name); v != variants.end()) {
      run.reuse = v->second.reuse;
      run.batch_gathers = v->second.batch_gathers;
      return true;
    }
    if (auto r = representations.find(name); r != representations.end()) {
      run.d = r->second.d;
      run.r = r->second.r;
      return true;
    }
    return false;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto& [name, v] : variants) all.push_back(name);
    for (const auto& [name, r] : representations) all.push_back(name);
    return all;
  }
  void apply_or_report(ConfigReader& t, const std::string& key, const std::string& name, ReferenceRun& run) const {
    if (!apply_name(name, run))
      t.problem(key, "no variant or representation '" + name + "' (variants:, representations:)" + did_you_mean(name, names()));
  }

  // dataflow, representation, layers and variant of the run an entry needs; keys absent keep `run`'s values.
  // `dataflow_required`: targets must name one; fact checks may inherit it from the fact.
  void read_run(ConfigReader& t, ReferenceRun& run, bool dataflow_required) const {
    if (dataflow_required) t.required("dataflow", run.dataflow);
    else t.optional("dataflow", run.dataflow);
    const bool known = std::find(dataflows_.begin(), dataflows_.end(), run.dataflow) != dataflows_.end();
    if (t.has("dataflow") && !run.dataflow.empty() && !known)
      t.problem("dataflow", "no dataflow '" + run.dataflow + "'" + did_you_mean(run.dataflow, dataflows_));
    if (t.has("representation")) {
      if (t.node()["representation"].is_scalar()) {
        std::string name;
        t.optional("representation", name);
        auto r = representations.find(name);
        if (r == representations.end()) {
          std::vector<std::string> reps;
          for (const auto& [n, rep] : representations) reps.push_back(n);
          t.problem("representation", "no representation '" + name + "' in representations:" + did_you_mean(name, reps));
        } else {
          run.d = r->second.d;
          run.r = r->second.r;
        }
      } else {
        ConfigReader rep = t.section("representation");
        rep.required("d", run.d).required("r", run.r);
        rep.finish();
      }
    }
    t.optional("layers", run.layers);
    t.non_negative("layers", run.layers);
    std::string variant;
    t.optional("variant", variant);
    if (!variant.empty() && !variants.count(variant)) {
      std::vector<std::string> names;
      for (const auto& [n, v] : variants) names.push_back(n);
      t.problem("variant", "no variant '" + variant + "' in variants:" + did_you_mean(variant, names));
    } else if (!variant.empty()) {
      apply_name(variant, run);
    }
  }
  // A run a simulation can be built from: a known dataflow with (d, r) unless it is dense.
  void check_complete(ConfigReader& t, const ReferenceRun& run, const std::string& what) const {
    if (run.dataflow.empty()) t.problem("dataflow", what + " needs a dataflow");
    else if (run.dataflow != "dense" && run.d == 0)
      t.problem("representation", what + " on dataflow " + run.dataflow + " needs a representation (d, r)");
  }

 private:
  std::vector<std::string> dataflows_;
};

void read_comparison(ConfigReader& c, FactCheckSpec& spec) {
  if (spec.metric == FactMetric::critical_engine) {
    c.required("equals", spec.equals);
    if (c.has("equals") && std::find(kCriticalEngines.begin(), kCriticalEngines.end(), spec.equals) == kCriticalEngines.end())
      c.problem("equals", "no engine '" + spec.equals + "'" + did_you_mean(spec.equals, kCriticalEngines));
    return;
  }
  if (spec.metric == FactMetric::targets_positive || spec.metric == FactMetric::target_less) return;
  const bool share = spec.metric != FactMetric::target_ratio;
  spec.has_value = c.has("value");
  c.optional("value", spec.value).optional("within", spec.within).optional("at_least", spec.at_least).optional("at_most", spec.at_most);
  c.check(spec.has_value != (c.has("at_least") || c.has("at_most")), "value", "give either value (and within) or at_least/at_most");
  c.check(!c.has("within") || spec.has_value, "within", "within needs a value");
  if (c.has("within")) c.positive("within", spec.within);
  for (const char* key : {"value", "at_least", "at_most"}) {
    if (!c.has(key)) continue;
    double v = std::string(key) == "value" ? spec.value : std::string(key) == "at_least" ? spec.at_least : spec.at_most;
    if (share) c.check(v >= 0 && v <= 1, key, "a share must be between 0 and 1");
    else c.positive(key, v);
  }
  if (c.has("at_least") && c.has("at_most")) c.check(spec.at_least <= spec.at_most, "at_most", "must not be below at_least");
}

}  // namespace

bool ReferenceRun::operator<(const ReferenceRun& o) const {
  return std::tie(dataflow, d, r, layers, reuse, batch_gathers) <
         std::tie(o.dataflow, o.d, o.r, o.layers, o.reuse, o.batch_gathers);
}

std::string ReferenceRun::describe() const {
  std::string s = dataflow;
  if (dataflow != "dense") s += " d=" + std::to_string(d) + " r=" + std::to_string(r);
  if (!reuse) s += " no-reuse";
  if (!batch_gathers) s += " no-batch";
  s += layers ? " " + std::to_string(layers) + " layers" : " all layers";
  return s;
}

double ReferenceTarget::tolerance() const {
  switch (kind) {
    case TargetKind::tpot_ms: return 0.05;
    case TargetKind::reduction_vs_dense:
    case TargetKind::reduction_vs_previous: return 0.015;
    case TargetKind::attention_share: return 0.02;
    default: return 0.10;
  }
}

bool ReferenceTarget::absolute_tolerance() const {
  return kind == TargetKind::reduction_vs_dense || kind == TargetKind::reduction_vs_previous ||
         kind == TargetKind::attention_share;
}

bool ReferenceTarget::has_baseline() const {
  return kind == TargetKind::reduction_vs_dense || kind == TargetKind::reduction_vs_previous || is_pair_kind(kind);
}

bool FactCheckSpec::needs_run() const {
  return metric == FactMetric::attention_share || metric == FactMetric::down_dma_overlap ||
         metric == FactMetric::critical_engine;
}

bool FactCheckSpec::holds(double simulated) const {
  if (has_value) return std::fabs(simulated - value) <= within + 1e-12;
  return simulated >= at_least - 1e-12 && simulated <= at_most + 1e-12;
}

std::string FactCheckSpec::expected() const {
  if (metric == FactMetric::critical_engine) return equals;
  if (metric == FactMetric::targets_positive) return "all > 0";
  if (metric == FactMetric::target_less) return "first < second";
  const bool share = metric != FactMetric::target_ratio;
  auto show = [&](double v) { return share ? percent(v) : plain(v); };
  if (has_value) return show(value) + " +-" + (share ? plain(within * 100) + "pt" : plain(within));
  if (at_most >= 1e300) return ">= " + show(at_least);
  if (at_least <= -1e300) return "<= " + show(at_most);
  return "in [" + show(at_least) + ", " + show(at_most) + "]";
}

std::vector<ReferenceRun> ReferenceData::runs() const {
  std::set<ReferenceRun> all;
  for (const ReferenceFact& f : facts)
    for (const FactCheckSpec& c : f.checks)
      if (c.needs_run()) all.insert(c.run);
  for (const ReferenceTarget& t : targets) {
    all.insert(t.run);
    if (t.has_baseline()) all.insert(t.baseline);
  }
  return {all.begin(), all.end()};
}

std::vector<std::string> ReferenceData::users_of(const ReferenceRun& run) const {
  std::vector<std::string> ids;
  for (const ReferenceTarget& t : targets)
    if (t.run == run || (t.has_baseline() && t.baseline == run)) ids.push_back(t.id);
  for (const ReferenceFact& f : facts)
    for (const FactCheckSpec& c : f.checks)
      if (c.needs_run() && c.run == run) {
        ids.push_back(f.id);
        break;
      }
  return ids;
}

ReferenceData load_reference(const std::string& path, const DataflowRegistry& registry) {
  namespace fs = std::filesystem;
  YamlNode root = load_yaml_file(path);
  Problems problems;
  ReferenceData ref;
  ref.file = path;
  ConfigReader top(root, path, "", problems);
  top.required("source", ref.source).required("hardware", ref.hardware).required("model", ref.model);
  top.optional("K", ref.K);
  top.positive("K", ref.K);
  // An unknown shipped name comes back with the did-you-mean and the list of shipped names.
  auto check_name = [&](const char* key, const std::string& name, std::string (*resolve)(const std::string&)) {
    std::error_code error;
    try {
      if (top.has(key) && !fs::exists(resolve(name), error)) top.problem(key, "no file '" + name + "'");
    } catch (const InputError& e) {
      top.problem(key, e.what());
    }
  };
  check_name("model", ref.model, resolve_model);
  const std::size_t before_hardware = problems.count();
  check_name("hardware", ref.hardware, resolve_hw);
  // The hardware the figures were measured on is read whole (its base: chain included), so that a file that is
  // not a hardware config (a folder, a typo'd key) is this file's problem at its line, not a run that misses.
  if (top.has("hardware") && problems.count() == before_hardware) {
    try {
      (void)load_hardware_config(ref.hardware);
    } catch (const InputError& e) {
      top.problem("hardware", e.what());
    }
  }
  ConfigReader deployment = top.section("deployment");
  deployment.required("tp", ref.tp).required("lnc", ref.lnc).required("batch", ref.batch);
  // A missing key is already reported; only a present one is checked for range.
  for (auto [key, value] : {std::pair<const char*, std::int64_t>{"tp", ref.tp}, {"lnc", ref.lnc}, {"batch", ref.batch}})
    if (deployment.has(key)) deployment.positive(key, value);
  deployment.finish();

  EntryReader entries(registry);
  ConfigReader variant_section = top.section("variants");
  if (variant_section.node().is_map()) {
    for (const auto& kv : variant_section.node()) {
      std::string name = kv.first.scalar();
      ConfigReader v = variant_section.section(name);
      Variant var;
      v.required("reuse_shared_projections", var.reuse).required("batch_gathers", var.batch_gathers);
      v.finish();
      entries.variants[name] = var;
    }
  }
  variant_section.finish();
  ConfigReader rep_section = top.section("representations", false);
  if (rep_section.node().is_map()) {
    for (const auto& kv : rep_section.node()) {
      std::string name = kv.first.scalar();
      ConfigReader v = rep_section.section(name);
      NamedRepresentation rep;
      v.required("d", rep.d).required("r", rep.r);
      v.positive("d", rep.d);
      v.non_negative("r", rep.r);
      v.finish();
      if (name.find("_vs_") != std::string::npos) rep_section.problem(name, "a name must not contain '_vs_' (it joins pairs)");
      if (entries.variants.count(name)) rep_section.problem(name, "'" + name + "' is already a variant");
      entries.representations[name] = rep;
    }
  }
  rep_section.finish();

  ReferenceRun dense_run{"dense", 0, 0, 0, true, true};
  std::map<std::int64_t, ReferenceRun> previous_ablation;  // by layers: the last ablation step's run
  struct PendingTargets {  // fact checks naming targets, resolved once every target is read
    std::size_t fact, check;
    std::string where;
  };
  std::vector<PendingTargets> pending;
  YamlNode list = top.list("targets");
  for (std::size_t i = 0; list && i < list.size(); ++i) {
    ConfigReader t(list[i], path, "targets[" + std::to_string(i) + "]", problems);
    std::string id;
    t.required("id", id);
    if (id.rfind("fact.", 0) == 0) {
      ReferenceFact fact;
      fact.id = id;
      t.required("text", fact.text);
      ReferenceRun base;
      entries.read_run(t, base, false);
      std::vector<ConfigReader> check_maps;
      if (t.has("check")) check_maps.push_back(t.section("check"));
      YamlNode check_list = t.list("checks", false);
      for (std::size_t k = 0; check_list && k < check_list.size(); ++k)
        check_maps.emplace_back(check_list[k], path, t.key_path("checks") + "[" + std::to_string(k) + "]", problems);
      t.check(!(t.has("check") && t.has("checks")), "checks", "give either check or checks, not both");
      for (ConfigReader& c : check_maps) {
        FactCheckSpec spec;
        std::string metric;
        c.required("metric", metric);
        static const std::vector<std::pair<std::string, FactMetric>> kMetrics = {
            {"attention_share", FactMetric::attention_share},
            {"down_dma_overlap", FactMetric::down_dma_overlap},
            {"critical_engine", FactMetric::critical_engine},
            {"attention_weight_share", FactMetric::attention_weight_share},
            {"targets_positive", FactMetric::targets_positive},
            {"target_ratio", FactMetric::target_ratio},
            {"target_less", FactMetric::target_less}};
        std::vector<std::string> metric_names;
        bool found = false;
        for (const auto& [name, m] : kMetrics) {
          metric_names.push_back(name);
          if (name == metric) {
            spec.metric = m;
            found = true;
          }
        }
        if (!metric.empty() && !found) {
          c.problem("metric", "unknown fact metric '" + metric + "'" + did_you_mean(metric, metric_names));
          c.finish();
          continue;
        }
        spec.run = base;
        if (spec.needs_run()) {
          entries.read_run(c, spec.run, false);
          entries.check_complete(c, spec.run, "check " + metric);
        }
        if (spec.metric == FactMetric::targets_positive || spec.metric == FactMetric::target_ratio ||
            spec.metric == FactMetric::target_less) {
          c.required("targets", spec.targets);
          if (c.has("targets")) {
            const bool pair = spec.metric != FactMetric::targets_positive;
            c.check(pair ? spec.targets.size() == 2 : !spec.targets.empty(), "targets",
                    pair ? "name exactly two targets" : "name at least one target");
            pending.push_back({ref.facts.size(), fact.checks.size(), c.where("targets")});
          }
        }
        read_comparison(c, spec);
        c.finish();
        fact.checks.push_back(spec);
      }
      t.finish();
      ref.facts.push_back(fact);
      continue;
    }
    ReferenceTarget target;
    target.id = id;
    target.where = t.where("id");
    std::string metric = id.substr(id.rfind('.') + 1);
    t.optional("metric", metric);
    if (!id.empty() && !parse_metric(metric, target))
      t.problem(t.has("metric") ? "metric" : "id", "unknown metric '" + metric + "'" + did_you_mean(metric, known_metrics()));
    ReferenceRun& run = target.run;
    entries.read_run(t, run, true);
    if (t.has("values")) {
      ConfigReader values = t.section("values");
      for (const auto& kv : values.node()) {
        std::string name = kv.first.scalar();
        ReferenceTarget per = target;
        per.id = id + "[" + name + "]";
        values.required(name, per.value);
        const std::size_t vs = name.find("_vs_");
        if (is_pair_kind(target.kind)) {
          if (vs == std::string::npos) {
            values.problem(name, "a change or ratio is keyed 'a_vs_b' (two variants or representations)");
          } else {
            per.baseline = run;
            entries.apply_or_report(t, "values." + name, name.substr(0, vs), per.run);
            entries.apply_or_report(t, "values." + name, name.substr(vs + 4), per.baseline);
            entries.check_complete(t, per.baseline, per.id);
          }
        } else {
          entries.apply_or_report(t, "values." + name, name, per.run);
          values.positive(name, per.value);
        }
        entries.check_complete(t, per.run, per.id);
        ref.targets.push_back(per);
      }
      values.finish();
      t.check(!t.has("value"), "value", "give either value or values, not both");
    } else {
      t.required("value", target.value);
      t.check(!is_pair_kind(target.kind), "value", "a change or ratio is given as values: {a_vs_b: ...}");
      if (target.kind == TargetKind::reduction_vs_dense) {
        target.baseline = dense_run;
        target.baseline.layers = run.layers;
      } else if (target.kind == TargetKind::reduction_vs_previous) {
        auto prev = previous_ablation.find(run.layers);
        if (prev == previous_ablation.end()) t.problem("id", "a reduction_vs_previous needs an ablation step before it");
        else target.baseline = prev->second;
      }
      if (target.kind == TargetKind::reduction_vs_dense || target.kind == TargetKind::reduction_vs_previous) {
        t.check(target.value > -1 && target.value < 1, "value", "a reduction must be between -1 and 1");
        previous_ablation[run.layers] = run;
      } else if (target.kind == TargetKind::attention_share) {
        t.check(target.value >= 0 && target.value <= 1, "value", "a share must be between 0 and 1");
      } else {
        t.positive("value", target.value);
      }
      entries.check_complete(t, run, id);
      ref.targets.push_back(target);
    }
    t.finish();
  }
  top.finish();
  std::vector<std::string> ids;
  for (const ReferenceTarget& t : ref.targets) ids.push_back(t.id);
  for (const PendingTargets& p : pending)
    for (const std::string& name : ref.facts[p.fact].checks[p.check].targets)
      if (std::find(ids.begin(), ids.end(), name) == ids.end())
        problems.add(p.where + ": no target '" + name + "' in this file" + did_you_mean(name, ids));
  problems.throw_if_any();
  return ref;
}

}  // namespace stasim
