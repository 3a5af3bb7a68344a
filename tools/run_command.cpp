// `stasim run` (one dataflow) and `stasim compare` (several side by side) on a model and a hardware config:
// options in, the public library (include/stasim/stasim.hpp) runs them, reports out.
#include <iostream>
#include <limits>
#include <sstream>

#include "stasim/io.hpp"
#include "stasim/reports.hpp"
#include "stasim/stasim.hpp"
#include "tools/cli.hpp"
#include "tools/request_options.hpp"

namespace stasim::cli {
namespace {

struct RunOptions {
  RunRequest request;
  std::int64_t batch = 0;  // 0 = the model's deployment default
  // Passed on the command line: a given 0 is reported as out of range, never taken as the default.
  CLI::Option* batch_given = nullptr;
  DeploymentOptions deployment;  // --tp, --lnc, --context (tools/request_options.hpp, shared with sweep)
  std::string dataflows = "dense,cardan";
  std::string json, trace, dot, ops, trace_layers, dump_config, csv;  // csv: compare only
  bool quiet = false;
};

void add_common(CLI::App* sub, RunOptions& o) {
  RunRequest& r = o.request;
  sub->add_option("--model", r.model, "model name (configs/models/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--hw", r.hw, "hardware name (configs/hw/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--d", r.d, "VQ block length d")->capture_default_str();
  sub->add_option("--r", r.r, "low-rank dimension r (0 = VQ only)")->capture_default_str();
  sub->add_option("--K", r.K, "code words per code book")->capture_default_str();
  // The deployment options show no "=0" in --help: their default is the model's (or hardware's) value.
  o.batch_given = sub->add_option("--batch", o.batch, "tokens per decode step, 1..64 (default: the model's deployment)")
                      ->default_str("");
  add_routing_options(sub, r);
  add_deployment_options(sub, o.deployment);
  sub->add_option("--layers", r.layers, "simulate the first N layers only (0 = all)")->capture_default_str();
  sub->add_option("--down-schedule", r.down, "auto | weight-sbuf | weight-psum | activation-sbuf | activation-psum")
      ->capture_default_str();
  add_switch_options(sub, r);
  add_set_option(sub, r);
  sub->add_option("--json", o.json, "write the result as JSON to FILE ('-' for stdout)");
  sub->add_flag("-q,--quiet", o.quiet, "print nothing but errors (no summary); the files named are still written");
  sub->add_option("--trace", o.trace, "write a Chrome/Perfetto trace-event JSON timeline to FILE");
  sub->add_option("--trace-layers", o.trace_layers, "trace only layers A to B (A:B, inclusive) or layer A");
  sub->add_option("--dot", o.dot, "write the schedule graph for Graphviz to FILE (critical path in red)");
  sub->add_option("--ops", o.ops, "write one CSV row per simulated op to FILE (core, queue, layer, expert, phase, "
                                  "kind, start/end, bound_by, bytes, ...)");
  sub->add_option("--dump-config", o.dump_config,
                  "write the resolved hardware and model configs (bases merged, --set applied) as YAML to FILE");
}

ResolvedConfigs run_configs(const RunRequest& r) {
  ResolvedConfigs configs;
  configs.hardware.push_back(resolved_hardware(r.hw, r.sets));
  configs.models.push_back(resolved_model(r.model, r.sets));
  if (!r.routes.empty()) configs.files.push_back({"routes", r.routes, r.routes});
  return configs;
}

// The trace, graph and op table of one run (compare: one of each per dataflow, tagged with its name).
void write_run_files(const RunOptions& o, const DecodeRun& r, const nlohmann::json& provenance, bool tagged) {
  // '-' is stdout, never a file name to tag (check_outputs refuses it when several dataflows would share it).
  auto name = [&](const std::string& path) { return tagged && path != "-" ? path_with_tag(path, r.dataflow) : path; };
  if (!o.trace.empty()) {
    TraceOptions options;
    options.title = r.dataflow;
    options.provenance = provenance;
    if (!o.trace_layers.empty()) parse_trace_layers(o.trace_layers, static_cast<int>(r.decode.layers.size()), options);
    write_trace_file(name(o.trace), r.decode.graph, r.result, r.hw, options);
  }
  if (!o.dot.empty()) write_dot_file(name(o.dot), r.decode.graph, r.result);
  if (!o.ops.empty()) {
    write_ops_file(name(o.ops), r.decode.graph, r.result);
    // The table's provenance sidecar goes next to a file; the rows on stdout have no place for one.
    if (o.ops != "-") write_json_file(name(o.ops) + ".meta.json", {{"provenance", provenance}});
  }
}

void apply_deployment(RunOptions& o) {
  auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
  if (o.batch || given(o.batch_given)) o.request.batch = o.batch;
  o.deployment.apply(o.request);
}

// Bad output options fail before any simulation: a missing folder, a --trace-layers that cannot parse, outputs
// that would overwrite each other or an input. compare writes one trace, graph and op table per dataflow (`tags`).
void check_outputs(const RunOptions& o, const std::vector<std::string>& tags) {
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--json", o.json}, {"--trace", o.trace},
                                     {"--dot", o.dot}, {"--ops", o.ops}, {"--dump-config", o.dump_config}, {"--csv", o.csv}})
    check_output_path(option, path);
  check_table_extension("--csv", o.csv, {".csv"});
  if (!o.trace_layers.empty()) {
    TraceOptions probe;
    parse_trace_layers(o.trace_layers, std::numeric_limits<int>::max(), probe);
    if (o.trace.empty()) throw InputError("--trace-layers " + o.trace_layers + ": it selects what --trace writes; add --trace FILE");
  }
  if (tags.size() > 1)
    for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--trace", o.trace}, {"--dot", o.dot}, {"--ops", o.ops}})
      if (path == "-")
        throw InputError(std::string(option) + " -: compare writes one per dataflow (FILE." + tags[0] + ", FILE." + tags[1] +
                         ", ...) and stdout takes only one: give a file name, or compare a single dataflow");
  std::vector<NamedPath> outputs = {{"--json", o.json}, {"--dump-config", o.dump_config}, {"--csv", o.csv}};
  for (const std::string& tag : tags) {
    auto tagged = [&](const std::string& path) { return tag.empty() || path.empty() || path == "-" ? path : path_with_tag(path, tag); };
    outputs.push_back({"--trace", tagged(o.trace)});
    outputs.push_back({"--dot", tagged(o.dot)});
    outputs.push_back({"--ops", tagged(o.ops)});
    outputs.push_back({"--ops", o.ops.empty() || o.ops == "-" ? "" : tagged(o.ops) + ".meta.json"});
  }
  const RunRequest& r = o.request;
  check_output_paths(outputs, {{"--model", model_option("--model", r.model)}, {"--hw", hw_option("--hw", r.hw)}, {"--routes", r.routes}});
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

void register_decode_commands(CLI::App& app, const Invocation& invocation) {
  auto sim = std::make_shared<Simulator>();

  auto run_opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Simulate one decode step of a model with one dataflow");
  add_common(run, *run_opts);
  run->add_option("--dataflow", run_opts->request.dataflow, "dense | xla | cardan | vq-only | lr-only | w4a8")->capture_default_str();
  run->callback([run, run_opts, sim, &invocation] {
    const RunOptions& o = *run_opts;
    apply_deployment(*run_opts);
    check_request(o.request);
    check_outputs(o, {""});
    const ResolvedConfigs configs = run_configs(o.request);
    check_outputs(o, {""});  // again with every file read: the hardware's base: chain
    if (!o.dump_config.empty()) write_text_file(o.dump_config, config_dump_text(configs), "config dump");
    const nlohmann::json prov = provenance(*run, invocation, configs_json(configs));
    DecodeRun result = sim->run(o.request);
    if (!o.quiet) Simulator::print(std::cout, result);
    if (!o.json.empty()) {
      nlohmann::json doc = Simulator::json(result);
      doc["provenance"] = prov;
      write_json_file(o.json, doc);
    }
    write_run_files(o, result, prov, false);
  });

  auto cmp_opts = std::make_shared<RunOptions>();
  CLI::App* cmp = app.add_subcommand("compare", "Simulate several dataflows on one configuration, side by side");
  add_common(cmp, *cmp_opts);
  cmp->add_option("--dataflows", cmp_opts->dataflows,
                  "comma-separated dataflows (dense, xla, cardan, vq-only, lr-only, w4a8); speedups are against the "
                  "first (--dataflow is taken too)")
      ->capture_default_str();
  cmp->add_option("--csv", cmp_opts->csv, "write the comparison table as CSV to FILE.csv ('-' for stdout)");
  cmp->callback([cmp, cmp_opts, sim, &invocation] {
    apply_deployment(*cmp_opts);
    check_request(cmp_opts->request);
    std::vector<std::string> names = split(cmp_opts->dataflows);
    check_outputs(*cmp_opts, names);
    if (names.empty()) throw InputError("--dataflows: name at least one dataflow");
    for (const auto& n : names) sim->registry().find(n);  // unknown names fail before any simulation
    const ResolvedConfigs configs = run_configs(cmp_opts->request);
    check_outputs(*cmp_opts, names);  // again with every file read: the hardware's base: chain
    if (!cmp_opts->dump_config.empty())
      write_text_file(cmp_opts->dump_config, config_dump_text(configs), "config dump");
    const nlohmann::json prov = provenance(*cmp, invocation, configs_json(configs));
    std::vector<DecodeRun> runs;
    for (const auto& n : names) {
      RunRequest req = cmp_opts->request;
      req.dataflow = n;
      runs.push_back(sim->run(req));
    }
    if (!cmp_opts->quiet) print_comparison(std::cout, runs);
    for (const DecodeRun& r : runs) write_run_files(*cmp_opts, r, prov, true);
    if (!cmp_opts->csv.empty()) write_output_file(cmp_opts->csv, comparison_csv(runs), "the comparison table");
    if (!cmp_opts->json.empty()) {
      nlohmann::json doc = nlohmann::json::object();
      nlohmann::json list = nlohmann::json::array();
      for (const DecodeRun& r : runs) {
        nlohmann::json j = Simulator::json(r);
        j["speedup_vs_" + runs[0].dataflow] =
            std::round(static_cast<double>(runs[0].tpot_ps()) / static_cast<double>(r.tpot_ps()) * 1e4) / 1e4;
        list.push_back(j);
      }
      doc["runs"] = list;
      doc["provenance"] = prov;
      write_json_file(cmp_opts->json, doc);
    }
  });
}

}  // namespace stasim::cli
