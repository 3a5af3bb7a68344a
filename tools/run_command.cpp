// `stasim run` (one dataflow) and `stasim compare` (several side by side) on a model and a hardware config:
// options in, the public library (include/stasim/stasim.hpp) runs them, reports out.
#include <iostream>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/reports/trace_output.hpp"
#include "stasim/stasim.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct RunOptions {
  RunRequest request;
  std::int64_t batch = 0, tp = 0, lnc = 0, context = 0;  // 0 = the model's deployment default
  // Passed on the command line: a given 0 is reported as out of range, never taken as the default.
  CLI::Option* batch_given = nullptr;
  CLI::Option* tp_given = nullptr;
  CLI::Option* lnc_given = nullptr;
  CLI::Option* context_given = nullptr;
  std::string dataflows = "dense,cardan";
  std::string json, trace, dot;
  bool quiet = false;
};

void add_common(CLI::App* sub, RunOptions& o) {
  RunRequest& r = o.request;
  sub->add_option("--model", r.model, "model name (configs/models/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--hw", r.hw, "hardware name (configs/hw/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--d", r.d, "VQ block length d")->capture_default_str();
  sub->add_option("--r", r.r, "low-rank dimension r (0 = VQ only)")->capture_default_str();
  sub->add_option("--K", r.K, "code words per code book")->capture_default_str();
  o.batch_given = sub->add_option("--batch", o.batch, "tokens per decode step, 1..64 (default: the model's deployment)");
  sub->add_option("--routes", r.routes, "routing of the batch: YAML/JSON/CSV file, one row of top-k experts per token");
  sub->add_option("--routing-seed", r.routing_seed, "seed of the uniform routing used without --routes")->capture_default_str();
  o.tp_given = sub->add_option("--tp", o.tp, "tensor-parallel degree (default: the model's deployment)");
  o.lnc_given = sub->add_option("--lnc", o.lnc, "physical cores per rank (default: the hardware's lnc)");
  o.context_given = sub->add_option("--context", o.context, "tokens in the KV cache (default: the model's deployment)");
  sub->add_option("--layers", r.layers, "simulate the first N layers only (0 = all)")->capture_default_str();
  sub->add_option("--down-schedule", r.down, "auto | weight-sbuf | weight-psum | activation-sbuf | activation-psum")
      ->capture_default_str();
  sub->add_flag("--no-reuse", r.no_reuse, "compute z and T once per expert instead of once per token");
  sub->add_flag("--no-batch-gathers", r.no_batch_gathers, "one GpSimd gather per expert and projection");
  sub->add_flag("--no-joint-psum", r.no_joint_psum, "VQ and LR parts each go through SBUF before the add");
  sub->add_flag("--no-overlap", r.no_overlap, "no prefetch across the three overlap windows");
  sub->add_flag("--all-experts", r.all_experts,
                "run every expert once over all tokens (routing as an affinity mask) instead of the activated ones");
  sub->add_flag("--routed-swdge", r.routed_swdge,
                "the routed experts' weight loads get their descriptors from GpSimd (software DGE) instead of the hardware DGE");
  sub->add_flag("--fuse-projections", r.fuse_projections,
                "router and shared-expert gate/up (and dense layers' gate/up) as one wider projection");
  sub->add_option("--set", r.sets, "override a hardware key (key.path=value) or a model key (model.key.path=value)");
  sub->add_option("--json", o.json, "write the result as JSON to FILE ('-' for stdout)");
  sub->add_flag("--quiet", o.quiet, "print no summary");
  sub->add_option("--trace", o.trace, "write a Chrome/Perfetto trace-event JSON timeline to FILE");
  sub->add_option("--dot", o.dot, "write the schedule graph for Graphviz to FILE (critical path in red)");
}

void apply_deployment(RunOptions& o) {
  auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
  if (o.batch || given(o.batch_given)) o.request.batch = o.batch;
  if (o.tp || given(o.tp_given)) o.request.tp = o.tp;
  if (o.lnc || given(o.lnc_given)) o.request.lnc = o.lnc;
  if (o.context || given(o.context_given)) o.request.context = o.context;
}

// Refuses, before anything is simulated, outputs that would overwrite each other or an input. compare writes
// one trace and one graph per dataflow (`tagged`).
void check_outputs(const RunOptions& o, const std::vector<std::string>& tags) {
  std::vector<NamedPath> outputs = {{"--json", o.json}};
  for (const std::string& tag : tags) {
    outputs.push_back({"--trace", tag.empty() || o.trace.empty() ? o.trace : path_with_tag(o.trace, tag)});
    outputs.push_back({"--dot", tag.empty() || o.dot.empty() ? o.dot : path_with_tag(o.dot, tag)});
  }
  const RunRequest& r = o.request;
  check_output_paths(outputs, {{"--model", resolve_model(r.model)}, {"--hw", resolve_hw(r.hw)}, {"--routes", r.routes}});
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

void register_decode_commands(CLI::App& app) {
  auto sim = std::make_shared<Simulator>();

  auto run_opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Simulate one decode step of a model with one dataflow");
  add_common(run, *run_opts);
  run->add_option("--dataflow", run_opts->request.dataflow, "dense | xla | cardan | vq-only | lr-only | w4a8")->capture_default_str();
  run->callback([run_opts, sim] {
    apply_deployment(*run_opts);
    check_outputs(*run_opts, {""});
    DecodeRun result = sim->run(run_opts->request);
    if (!run_opts->quiet) Simulator::print(std::cout, result);
    if (!run_opts->json.empty()) write_json_file(run_opts->json, Simulator::json(result));
    if (!run_opts->trace.empty())
      write_trace_file(run_opts->trace, result.decode.graph, result.result, result.hw, result.dataflow);
    if (!run_opts->dot.empty()) write_dot_file(run_opts->dot, result.decode.graph, result.result);
  });

  auto cmp_opts = std::make_shared<RunOptions>();
  CLI::App* cmp = app.add_subcommand("compare", "Simulate several dataflows on one configuration, side by side");
  add_common(cmp, *cmp_opts);
  cmp->add_option("--dataflows", cmp_opts->dataflows, "comma-separated dataflows; speedups are against the first")
      ->capture_default_str();
  cmp->callback([cmp_opts, sim] {
    apply_deployment(*cmp_opts);
    std::vector<std::string> names = split(cmp_opts->dataflows);
    if (names.empty()) throw InputError("--dataflows: name at least one dataflow");
    for (const auto& n : names) sim->registry().find(n);  // unknown names fail before any simulation
    check_outputs(*cmp_opts, names);
    std::vector<DecodeRun> runs;
    for (const auto& n : names) {
      RunRequest req = cmp_opts->request;
      req.dataflow = n;
      runs.push_back(sim->run(req));
    }
    if (!cmp_opts->quiet) print_comparison(std::cout, runs);
    for (const DecodeRun& r : runs) {
      if (!cmp_opts->trace.empty())
        write_trace_file(path_with_tag(cmp_opts->trace, r.dataflow), r.decode.graph, r.result, r.hw, r.dataflow);
      if (!cmp_opts->dot.empty()) write_dot_file(path_with_tag(cmp_opts->dot, r.dataflow), r.decode.graph, r.result);
    }
    if (!cmp_opts->json.empty()) {
      nlohmann::json doc = nlohmann::json::object();
      nlohmann::json list = nlohmann::json::array();
      for (const DecodeRun& r : runs) {
        nlohmann::json j = Simulator::json(r);
        j["speedup_vs_" + runs[0].dataflow] =
            std::round(static_cast<double>(runs[0].result.total_ps) / static_cast<double>(r.result.total_ps) * 1e4) / 1e4;
        list.push_back(j);
      }
      doc["runs"] = list;
      write_json_file(cmp_opts->json, doc);
    }
  });
}

}  // namespace stasim::cli
