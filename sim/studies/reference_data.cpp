#include "sim/studies/reference_data.hpp"

#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {
namespace {

struct Variant {
  bool reuse = true, batch_gathers = true;
};

const std::vector<std::string> kEngines = {"tensor", "vector", "scalar", "gpsimd"};

// The metric is the last component of the id: "ablation.reuse.reduction_vs_previous" -> reduction_vs_previous.
bool parse_metric(const std::string& metric, ReferenceTarget& t) {
  if (metric == "tpot_ms") { t.kind = TargetKind::tpot_ms; return true; }
  if (metric == "reduction_vs_dense") { t.kind = TargetKind::reduction_vs_dense; return true; }
  if (metric == "reduction_vs_previous") { t.kind = TargetKind::reduction_vs_previous; return true; }
  if (metric == "dma_active_us") { t.kind = TargetKind::active_us; t.engine = "dma"; return true; }
  for (const std::string& e : kEngines) {
    if (metric == e + "_active_us") { t.kind = TargetKind::active_us; t.engine = e; return true; }
    if (metric == e + "_instructions") { t.kind = TargetKind::instructions; t.engine = e; return true; }
  }
  return false;
}

std::vector<std::string> known_metrics() {
  std::vector<std::string> m = {"tpot_ms", "reduction_vs_dense", "reduction_vs_previous", "dma_active_us"};
  for (const std::string& e : kEngines) {
    m.push_back(e + "_active_us");
    m.push_back(e + "_instructions");
  }
  return m;
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
    default: return 0.10;
  }
}

bool ReferenceTarget::absolute_tolerance() const {
  return kind == TargetKind::reduction_vs_dense || kind == TargetKind::reduction_vs_previous;
}

bool ReferenceFact::holds(double simulated) const {
  if (at_least >= 0) return simulated >= at_least;
  return std::fabs(simulated - value) <= 0.015 + 1e-12;
}

std::vector<ReferenceRun> ReferenceData::runs() const {
  std::set<ReferenceRun> all;
  for (const ReferenceFact& f : facts)
    if (f.checked()) all.insert(f.run);
  for (const ReferenceTarget& t : targets) {
    all.insert(t.run);
    if (t.kind == TargetKind::reduction_vs_dense || t.kind == TargetKind::reduction_vs_previous) all.insert(t.baseline);
  }
  return {all.begin(), all.end()};
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
  std::error_code error;
  if (top.has("model") && !fs::exists(resolve_model(ref.model), error))
    top.problem("model", "no model '" + ref.model + "' (configs/models/" + ref.model + ".yaml)");
  if (top.has("hardware") && !fs::exists(resolve_hw(ref.hardware), error))
    top.problem("hardware", "no hardware '" + ref.hardware + "' (configs/hw/" + ref.hardware + ".yaml)");
  ConfigReader deployment = top.section("deployment");
  deployment.required("tp", ref.tp).required("lnc", ref.lnc).required("batch", ref.batch);
  // A missing key is already reported; only a present one is checked for range.
  for (auto [key, value] : {std::pair<const char*, std::int64_t>{"tp", ref.tp}, {"lnc", ref.lnc}, {"batch", ref.batch}})
    if (deployment.has(key)) deployment.positive(key, value);
  deployment.finish();

  std::map<std::string, Variant> variants;
  ConfigReader variant_section = top.section("variants");
  if (variant_section.node().is_map()) {
    for (const auto& kv : variant_section.node()) {
      std::string name = kv.first.scalar();
      ConfigReader v = variant_section.section(name);
      Variant var;
      v.required("reuse_shared_projections", var.reuse).required("batch_gathers", var.batch_gathers);
      v.finish();
      variants[name] = var;
    }
  }
  variant_section.finish();
  std::vector<std::string> variant_names;
  for (const auto& [name, v] : variants) variant_names.push_back(name);

  const std::vector<std::string> dataflows = registry.names();
  ReferenceRun dense_run{"dense", 0, 0, 0, true, true};
  std::map<std::int64_t, ReferenceRun> previous_ablation;  // by layers: the last ablation step's run
  auto apply_variant = [&](ConfigReader& t, const std::string& name, const std::string& key, ReferenceRun& into) {
    auto found = variants.find(name);
    if (found == variants.end()) {
      std::string near = nearest_match(name, variant_names);
      t.problem(key, "no variant '" + name + "' in variants" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
      return;
    }
    into.reuse = found->second.reuse;
    into.batch_gathers = found->second.batch_gathers;
  };
  // dataflow, representation (d, r) and layers of the run an entry needs.
  auto read_run = [&](ConfigReader& t, ReferenceRun& run) {
    t.required("dataflow", run.dataflow);
    const bool known = std::find(dataflows.begin(), dataflows.end(), run.dataflow) != dataflows.end();
    if (!run.dataflow.empty() && !known) {
      std::string near = nearest_match(run.dataflow, dataflows);
      t.problem("dataflow", "no dataflow '" + run.dataflow + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    // Whether (d, r) is required depends on the dataflow: an unknown one gets no second message about it.
    const bool needs_representation = known && run.dataflow != "dense";
    ConfigReader rep = t.section("representation", needs_representation);
    rep.optional("d", run.d).optional("r", run.r);
    if (needs_representation) rep.required("d", run.d).required("r", run.r);
    rep.finish();
    t.optional("layers", run.layers);
    t.non_negative("layers", run.layers);
  };
  YamlNode list = top.list("targets");
  for (std::size_t i = 0; list && i < list.size(); ++i) {
    ConfigReader t(list[i], path, "targets[" + std::to_string(i) + "]", problems);
    std::string id;
    t.required("id", id);
    if (id.rfind("fact.", 0) == 0) {
      ReferenceFact fact;
      fact.id = id;
      t.required("text", fact.text);
      if (t.has("check")) {
        read_run(t, fact.run);
        std::string variant;
        t.optional("variant", variant);
        if (!variant.empty()) apply_variant(t, variant, "variant", fact.run);
        ConfigReader check = t.section("check");
        std::string metric;
        check.required("metric", metric);
        if (metric == "attention_share") fact.metric = FactMetric::attention_share;
        else if (metric == "down_dma_overlap") fact.metric = FactMetric::down_dma_overlap;
        else if (!metric.empty()) {
          std::string near = nearest_match(metric, {"attention_share", "down_dma_overlap"});
          check.problem("metric", "unknown fact metric '" + metric + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        check.check(check.has("value") != check.has("at_least"), "value", "give either value or at_least");
        check.optional("value", fact.value).optional("at_least", fact.at_least);
        if (check.has("value"))
          check.check(fact.value >= 0 && fact.value <= 1, "value", "a share must be between 0 and 1");
        if (check.has("at_least"))
          check.check(fact.at_least >= 0 && fact.at_least <= 1, "at_least", "a share must be between 0 and 1");
        check.finish();
      }
      t.finish();
      ref.facts.push_back(fact);
      continue;
    }
    ReferenceTarget target;
    target.id = id;
    target.where = t.where("id");
    const std::string metric = id.substr(id.rfind('.') + 1);
    if (!id.empty() && !parse_metric(metric, target)) {
      std::string near = nearest_match(metric, known_metrics());
      t.problem("id", "unknown metric '" + metric + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    ReferenceRun& run = target.run;
    read_run(t, run);
    if (t.has("values")) {
      ConfigReader values = t.section("values");
      for (const auto& kv : values.node()) {
        std::string name = kv.first.scalar();
        ReferenceTarget per = target;
        per.id = id + "[" + name + "]";
        values.required(name, per.value);
        values.positive(name, per.value);
        apply_variant(t, name, "values." + name, per.run);
        ref.targets.push_back(per);
      }
      values.finish();
      t.check(!t.has("value"), "value", "give either value or values, not both");
    } else {
      std::string variant;
      t.optional("variant", variant);
      if (!variant.empty()) apply_variant(t, variant, "variant", run);
      t.required("value", target.value);
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
      } else {
        t.positive("value", target.value);
      }
      ref.targets.push_back(target);
    }
    t.finish();
  }
  top.finish();
  problems.throw_if_any();
  return ref;
}

}  // namespace stasim
