// The public header for embedding the simulator in another program: build a decode request, run it, and get
// the result object that `stasim run --json` is written from. Link the CMake target `stasim_library`.
//
//   stasim::Simulator sim;                  // the built-in dataflows; the kernel is made on first use
//   stasim::RunRequest request;             // defaults: the shipped Qwen3-30B-A3B, cardan, trn3-calibrated
//   request.layers = 2;
//   stasim::DecodeRun run = sim.run(request);
//   nlohmann::json doc = sim.json(run);     // the document of `stasim run --json`; run.result: per-op timings
//   doc["provenance"] = stasim::request_provenance(request, "run");  // what the CLI records beside it
//   nlohmann::json side = sim.json(sim.compare(request, {"dense", "cardan"}));  // `stasim compare --json`'s runs
//
// Sweeps (a grid of runs in worker processes) are include/stasim/sweep.hpp, kernels include/stasim/kernel.hpp.
// Where a name is found (resolve_model, resolve_hw, resolve_config_path: sim/studies/config_paths.hpp), the
// names `stasim list` shows (catalog: sim/studies/catalog.hpp) and the configs a result read, with their
// SHA-256 (sim/studies/resolved_configs.hpp), come with this header.
// Every simulation of a process runs on that process's one SystemC kernel, one after another: a Simulator is
// not to be used from several threads at once (use processes, as sim/studies/worker_pool.hpp does). Bad input
// throws stasim::InputError (its message names the file:line:col or key), a failed simulation
// stasim::SimulationError (stasim::DeadlockError when ops never ran).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/number_text.hpp"  // CNumericScope: numbers read and printed with '.' whatever locale a host set
#include "sim/studies/catalog.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/request_switches.hpp"
#include "sim/studies/resolved_configs.hpp"

namespace stasim {

class Simulator {
 public:
  Simulator() { register_builtin(registry_); }

  // Builds, validates and simulates one decode step (with `down = "auto"`, the four down schedules, keeping
  // the fastest).
  DecodeRun run(const RunRequest& request) const { return run_decode(request, registry_); }
  // The stable JSON document of `stasim run --json` (sorted keys).
  static nlohmann::json json(const DecodeRun& run) { return decode_json(run); }
  // The human summary `stasim run` prints.
  static void print(std::ostream& out, const DecodeRun& run) { print_decode(out, run); }

  // `stasim compare`: the request once per dataflow, in the order given. Every name is checked before any
  // simulation (InputError for an unknown one, or for none).
  std::vector<DecodeRun> compare(const RunRequest& request, const std::vector<std::string>& dataflows) const {
    if (dataflows.empty()) throw InputError("--dataflows: name at least one dataflow");
    for (const std::string& name : dataflows) registry_.find(name);
    std::vector<DecodeRun> runs;
    for (const std::string& name : dataflows) {
      RunRequest one = request;
      one.dataflow = name;
      runs.push_back(run(one));
    }
    return runs;
  }
  // The document of `stasim compare --json` (without its provenance): {"runs": [...]}, each run's document with
  // its speedup over the first, speedup_vs_<first> (TPOT ratio, 4 decimals).
  static nlohmann::json json(const std::vector<DecodeRun>& runs) {
    nlohmann::json list = nlohmann::json::array();
    for (const DecodeRun& r : runs) {
      nlohmann::json one = json(r);
      one["speedup_vs_" + runs.front().dataflow] =
          std::round(static_cast<double>(runs.front().tpot_ps()) / static_cast<double>(r.tpot_ps()) * 1e4) / 1e4;
      list.push_back(std::move(one));
    }
    return {{"runs", list}};
  }

  // The dataflows a request may name; add one with registry().add(...) before running it.
  DataflowRegistry& registry() { return registry_; }
  const DataflowRegistry& registry() const { return registry_; }

 private:
  DataflowRegistry registry_;
};

// The version `stasim --version` prints ("0.1.0"); every provenance block also records the build's git description.
inline std::string version() { return stasim_version(); }

// Switches that only refine another one, given without it, would change nothing: `stasim run` and `compare`
// refuse them (InputError naming both flags). A sweep does not: an axis over the other switch gives them meaning.
inline void check_request(const RunRequest& r) {
  if (r.recompute_table && !r.no_reuse)
    throw InputError("--recompute-table: the table is recomputed per expert only where z is, without reuse; add "
                     "--no-reuse (with reuse z and T are computed once per token, so it would change nothing)");
  if (r.no_group_exchange && r.no_batch_gathers)
    throw InputError("--no-group-exchange: with --no-batch-gathers every expert already sends its own partial rows, "
                     "so it would change nothing; drop one of the two");
  if (r.group_routes && r.all_experts)
    throw InputError("--group-routes: --all-experts runs every expert once over all tokens, so there are no routes to "
                     "group; drop one of the two");
}

// The configs a request reads: its hardware and model with its --set values applied, and its routes file.
inline ResolvedConfigs request_configs(const RunRequest& r) {
  ResolvedConfigs configs;
  configs.hardware.push_back(resolved_hardware(r.hw, r.sets));
  configs.models.push_back(resolved_model(r.model, r.sets));
  if (!r.routes.empty()) configs.files.push_back({"routes", r.routes, r.routes});
  return configs;
}

// The provenance block `stasim run --json` (command "run") or `stasim compare --json` ("compare", with
// `dataflows`) records, for a request made in a program: the version, the configs read with their SHA-256,
// the --set values, the request's options under the CLI's names and spellings (the output options --json,
// --trace, ... are the CLI's, not a request's, and absent), and as command_line the CLI command that
// reproduces the result (its options away from their defaults).
inline nlohmann::json request_provenance(const RunRequest& r, const std::string& command,
                                         const std::vector<std::string>& dataflows = {}) {
  const RunRequest defaults;
  nlohmann::json options = nlohmann::json::object();
  std::vector<std::string> line = {"stasim", command};
  auto text = [&](const std::string& name, const std::string& value, bool away_from_default) {
    options[name] = value;
    if (away_from_default) line.insert(line.end(), {"--" + name, value});
  };
  auto optional = [&](const std::string& name, const std::optional<std::int64_t>& value) {
    text(name, value ? std::to_string(*value) : "", value.has_value());
  };
  text("model", r.model, r.model != defaults.model);
  if (command == "compare") {
    std::string names;
    for (const std::string& name : dataflows) names += (names.empty() ? "" : ",") + name;
    text("dataflows", names, names != "dense,cardan");
  } else {
    text("dataflow", r.dataflow, r.dataflow != defaults.dataflow);
  }
  text("hw", r.hw, r.hw != defaults.hw);
  text("d", std::to_string(r.d), r.d != defaults.d);
  text("r", std::to_string(r.r), r.r != defaults.r);
  text("K", std::to_string(r.K), r.K != defaults.K);
  optional("batch", r.batch);
  optional("tp", r.tp);
  optional("lnc", r.lnc);
  optional("context", r.context);
  text("layers", std::to_string(r.layers), r.layers != defaults.layers);
  text("down-schedule", r.down, r.down != defaults.down);
  text("routes", r.routes, !r.routes.empty());
  text("routing-seed", std::to_string(r.routing_seed), r.routing_seed != defaults.routing_seed);
  for (const RequestSwitch& s : request_switches()) {
    const std::string name = std::string(s.run_option).substr(2);
    options[name] = r.*s.field;
    if (r.*s.field) line.push_back(s.run_option);
  }
  options["set"] = r.sets;
  for (const std::string& set : r.sets) line.insert(line.end(), {"--set", set});
  return {{"stasim", {{"version", stasim_version()}, {"git", stasim_git_describe()}}},
          {"command", command},
          {"command_line", line},
          {"options", options},
          {"sets", r.sets},
          {"configs", configs_json(request_configs(r))}};
}

}  // namespace stasim
