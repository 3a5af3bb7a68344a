// `stasim sweep`: a grid of decode runs, each point in a worker process, with the request options of `run`
// (tools/request_options.hpp) and its switches as axes (--vary option.reuse=0,1). The output is safe to run on
// a cluster: its folder is made, an existing output is kept unless --resume or --force says what to do with it,
// and FILE.meta.json records the grid's fingerprint (sim/studies/sweep_fingerprint.hpp) for --resume and merge.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <set>

#include "stasim/io.hpp"
#include "stasim/reports.hpp"
#include "stasim/stasim.hpp"
#include "stasim/sweep.hpp"
#include "tools/cli.hpp"
#include "tools/request_options.hpp"

namespace stasim::cli {
namespace {

struct SweepOptions {
  std::string config, models, dataflows, hw, d, r, K, batch, down;
  std::vector<std::string> vary;
  std::int64_t layers = -1;
  int jobs = 0;
  double point_time_limit_s = 600;
  std::string shard;
  std::string out;
  bool resume = false, force = false;
  double progress_every_s = 5;
  RunRequest base;                // --set, --routes, --routing-seed, the switches (shared with run)
  CLI::Option* routing_seed_given = nullptr;
  DeploymentOptions deployment;   // --tp, --lnc, --context
  std::string weights;
  std::int64_t weights_layer = -1;
  std::int64_t weights_experts = 0;
};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

// A sweep YAML by shipped name (configs/sweeps/NAME.yaml) or path.
std::string sweep_config_path(const std::string& name) {
  try {
    return resolve_sweep(name);
  } catch (const InputError& e) {
    throw InputError(std::string("--config: ") + e.what());
  }
}

SweepSpec build_spec(const SweepOptions& o) {
  SweepSpec spec;
  if (!o.config.empty()) spec = load_sweep(sweep_config_path(o.config));
  if (!o.models.empty()) spec.models = split_names(o.models);
  if (!o.dataflows.empty()) spec.dataflows = split_names(o.dataflows);
  if (!o.hw.empty()) spec.hw = o.hw;
  if (!o.d.empty()) spec.d = parse_int_list(o.d, "--d");
  if (!o.r.empty()) spec.r = parse_int_list(o.r, "--r");
  if (!o.K.empty()) spec.K = parse_int_list(o.K, "--K");
  if (!o.batch.empty()) spec.batch = parse_int_list(o.batch, "--batch");
  if (!o.down.empty()) spec.down = o.down;
  if (o.layers >= 0) spec.layers = o.layers;
  if (!o.weights.empty()) spec.weights = o.weights;
  if (o.weights_layer >= 0) spec.weights_layer = o.weights_layer;
  for (const std::string& v : o.vary) spec.vary.push_back(parse_vary(v));
  check_vary_keys(spec);
  // What every point shares: the spec's own (from --config) with the command line's request options on top: its
  // --set values after the config's (the last value of a key wins), a switch given on either, --routes,
  // --routing-seed, --tp, --lnc, --context when given.
  RunRequest& base = spec.base;
  base.sets.insert(base.sets.end(), o.base.sets.begin(), o.base.sets.end());
  if (!o.base.routes.empty()) base.routes = o.base.routes;
  if (o.routing_seed_given && o.routing_seed_given->count() > 0) base.routing_seed = o.base.routing_seed;
  for (const RequestSwitch& s : request_switches()) base.*s.field = base.*s.field || o.base.*s.field;  // given on either
  o.deployment.apply(base);
  for (const auto& [key, values] : spec.vary) {
    if (!is_option_axis(key)) continue;
    const std::string fixed = fixed_option_for(spec.base, key);
    if (!fixed.empty())
      throw InputError("--vary " + key + " and " + fixed + " both set " + fixed + "'s value: keep the axis or the fixed option");
  }
  if (spec.models.empty()) throw InputError("--models: name at least one model");
  if (spec.dataflows.empty()) throw InputError("--dataflows: name at least one dataflow");
  if (hardware_names(spec).empty()) throw InputError("--hw: name at least one hardware config");
  return spec;
}

// Bad input that concerns the whole grid fails before any point runs: unknown dataflows, models, hardware and
// --vary keys (an unknown key would fail every point). A bad value of a known key only fails its points.
void check_spec(const SweepSpec& spec, const DataflowRegistry& registry) {
  for (const std::string& name : spec.dataflows) registry.find(name);
  std::vector<std::string> hw_paths;
  for (const std::string& hw : hardware_names(spec)) {
    hw_paths.push_back(hw_option("--hw", hw));
    load_hardware_document(hw_paths.back(), shipped_hw_path);
  }
  for (const std::string& model : spec.models) load_yaml_file(resolve_model(model));
  for (const auto& [key, values] : spec.vary) {
    if (is_option_axis(key)) continue;  // its values were checked when parsed (request_axes.hpp)
    bool model_key = key.rfind("model.", 0) == 0;
    std::string file = model_key ? resolve_model(spec.models.front()) : hw_paths.front();
    YamlNode root = model_key ? load_yaml_file(file) : load_hardware_document(file, shipped_hw_path);
    apply_overrides(root, {(model_key ? key.substr(6) : key) + "=" + values.front()}, file);
  }
  // A routes file that does not parse, or names experts a model does not have, would fail every point.
  if (!spec.base.routes.empty())
    for (const std::string& model : spec.models) read_routing_file(spec.base.routes, load_model(resolve_model(model)).experts);
}

void run_sweep(const CLI::App& sub, const Invocation& invocation, const SweepOptions& o) {
  DataflowRegistry registry;
  register_builtin(registry);
  SweepSpec spec = build_spec(o);
  check_spec(spec, registry);
  const ResolvedConfigs configs = sweep_configs(spec);
  ResolvedConfigs read = configs;
  if (!o.config.empty()) read.files.push_back({"sweep", o.config, sweep_config_path(o.config)});
  const nlohmann::json prov = provenance(sub, invocation, configs_json(read));
  // Rows are appended to --out and the file is finally renamed over: a device or FIFO is refused, and so is
  // an --out that names one of the sweep's inputs.
  require_replaceable(o.out, "the sweep output");
  std::vector<NamedPath> inputs;
  for (const std::string& hw : hardware_names(spec)) inputs.push_back({"--hw", resolve_hw(hw)});
  if (!o.config.empty()) inputs.push_back({"--config", sweep_config_path(o.config)});
  for (const std::string& model : spec.models) inputs.push_back({"--models", resolve_model(model)});
  if (!spec.base.routes.empty()) inputs.push_back({"--routes", spec.base.routes});
  if (!spec.weights.empty() && spec.weights.rfind("synthetic", 0) != 0) inputs.push_back({"--weights", spec.weights});
  check_output_paths({{"--out", o.out}, {"--out", o.out + ".meta.json"}}, inputs);
  check_table_extension("--out", o.out, sweep_output_extensions());  // before anything is made or written
  check_output_writable("--out", o.out);  // before any simulation: a folder it cannot write in, a name too long
  check_output_writable("--out", o.out + ".meta.json");
  std::vector<SweepPoint> grid = expand(spec, registry);
  if (grid.empty()) throw InputError("the grid is empty");
  std::size_t shard = 0, shards = 1;
  if (!o.shard.empty()) parse_shard(o.shard, shard, shards);
  // The CPUs this process may run on (a Slurm or taskset allotment), not every core of the machine.
  const int jobs = o.jobs > 0 ? o.jobs : available_cpus();

  make_parent_folder(o.out);
  // Held until the output is final: a second sweep on the same --out stops here and names this one.
  OutputLock lock(o.out);
  std::error_code exists_error;
  const bool exists = std::filesystem::exists(o.out, exists_error) || std::filesystem::is_symlink(o.out, exists_error);
  if (exists && !o.resume && !o.force)
    throw InputError("--out " + o.out + ": the file exists (a sweep's output?); pass --resume to continue the sweep "
                     "that wrote it, --force to replace it, or choose another --out");
  std::unique_ptr<SweepQuality> quality;
  std::map<std::string, ModelSpec> models;
  if (!spec.weights.empty()) {
    WeightsSource source = WeightsSource::parse(spec.weights);
    source.experts = static_cast<int>(o.weights_experts);
    quality = std::make_unique<SweepQuality>(source, spec.weights_layer, jobs);
    for (const std::string& name : spec.models) models.emplace(name, load_model(resolve_model(name)));
    for (const auto& item : models) quality->load(item.second);
    for (SweepPoint& p : grid) p.weights = quality->label(models.at(p.model));
  }
  // The weights label is part of each key too (the other parts were checked by expand).
  for (const SweepPoint& p : grid) {
    const std::string problem = unprintable(p.weights);
    if (!problem.empty())
      throw InputError("--weights: the label of point " + std::to_string(p.index) + " holds " + problem +
                       "; a point's key is a cell of the output, so it must be printable UTF-8");
  }
  const SweepGridInfo grid_info = sweep_grid_info(spec, grid, configs, shard, shards);
  std::vector<SweepPoint> mine;
  for (const SweepPoint& p : grid)
    if (p.index % shards == shard) mine.push_back(p);

  std::set<std::string> have;
  SweepTable previous;
  if (o.resume) {
    previous = read_sweep_table(o.out);
    forget_input_file(o.out);  // read back on purpose: the file this sweep continues
    check_resumed_rows(previous, grid, o.out);
    // Only rows can be of another setup: a .meta.json left beside a removed or empty output says nothing.
    if (!previous.rows.empty()) check_resumed_setup(o.out, grid_info);
    for (const SweepRow& row : previous.rows) have.insert(row.value("key", std::string()));
  }
  // Written first, so a killed sweep's output already says which grid its rows belong to.
  write_json_file(o.out + ".meta.json", {{"provenance", prov}, {"grid", grid_info.to_json()}});
  std::vector<SweepPoint> todo;
  for (const SweepPoint& p : mine)
    if (!have.count(p.key())) todo.push_back(p);

  bool jsonl = is_jsonl_path(o.out);
  bool fresh = !o.resume || previous.rows.empty();
  // The rows kept are written again in this sweep's layout (its vary columns) before new ones are appended;
  // a last line a kill cut off is dropped with it, so the file never holds a broken line in its middle.
  std::vector<std::string> vary_keys;
  for (const auto& entry : spec.vary) vary_keys.push_back(entry.first);
  if (!fresh) {
    std::string text = jsonl ? "" : csv_header(vary_keys) + "\n";
    for (const SweepRow& row : previous.rows) text += row_line(row, jsonl, vary_keys) + "\n";
    replace_output_file(o.out, text, "the sweep output");
  }
  OutputAppender out(o.out, fresh, "the sweep output");
  if (fresh && !jsonl) out.append(csv_header(vary_keys) + "\n");

  auto begin = std::chrono::steady_clock::now();
  std::map<std::string, SweepRow> cells;
  if (quality) cells = quality_cells(todo, *quality, models, registry);
  SweepProgress progress;
  progress.mode = ::isatty(STDERR_FILENO) == 1 ? SweepProgress::Mode::redraw : SweepProgress::Mode::lines;
  progress.every_s = o.progress_every_s;
  run_points(todo, jobs, progress, registry, [&](SweepRow row) {
    auto found = cells.find(row.value("key", std::string()));
    if (found != cells.end() && row.value("status", std::string()) == "ok") row.update(found->second);
    out.append(row_line(row, jsonl, vary_keys) + "\n");  // at once: a killed sweep loses only the points in flight
  }, o.point_time_limit_s);
  out.close();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  std::vector<SweepRow> rows = read_sweep_rows(o.out);
  forget_input_file(o.out);  // its own rows, read back to be finalized in place
  finalize(rows);
  write_sweep_rows(o.out, rows);

  std::set<std::string> mine_keys;
  for (const SweepPoint& p : mine) mine_keys.insert(p.key());
  std::size_t ok = 0, invalid = 0, errors = 0, front = 0, quality_front = 0;
  std::string first_reason;
  for (const SweepRow& row : rows) {
    if (!mine_keys.count(row.value("key", std::string()))) continue;
    std::string status = row.value("status", std::string());
    ok += status == "ok";
    invalid += status == "invalid";
    errors += status == "error";
    front += row["pareto"] == 1;
    quality_front += row["pareto_quality"] == 1;
    if (status != "ok" && first_reason.empty()) first_reason = row.value("reason", std::string());
  }
  std::string fronts = std::to_string(front) + " on the Pareto front" +
                       (quality ? ", " + std::to_string(quality_front) + " on the quality-latency front" : "");
  std::printf("sweep: %zu points%s, %zu run now with %d jobs in %.1f s, %zu resumed; ok %zu, invalid %zu, error %zu; "
              "%s; down schedule %s; wrote %s\n",
              mine.size(), shards > 1 ? (" (shard " + o.shard + " of " + std::to_string(grid.size()) + ")").c_str() : "",
              todo.size(), jobs, seconds, mine.size() - todo.size(), ok, invalid, errors, fronts.c_str(),
              spec.down.c_str(), o.out.c_str());
  if (ok == 0) throw InputError("no valid point in the grid (first reason: " + first_reason + ")");
}

}  // namespace

void register_sweep_commands(CLI::App& app, const Invocation& invocation) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand("sweep", "Run a grid of decode simulations (in a pool of --jobs worker processes)");
  sub->add_option("--config", o->config, "sweep YAML (configs/sweeps/NAME.yaml or a path); options below override it");
  sub->add_option("--models,--model", o->models, "comma-separated models (default qwen3-30b-a3b)");
  sub->add_option("--dataflows,--dataflow", o->dataflows, "comma-separated dataflows (default dense,cardan)");
  sub->add_option("--hw", o->hw, "comma-separated hardware names or YAMLs, an axis of the grid: trn2,trn3 (default "
                  "trn3-calibrated, as run)");
  sub->add_option("--d", o->d, "VQ block lengths: 2,4,8 or start:stop:step (default 8)");
  sub->add_option("--r", o->r, "low ranks, e.g. 0:512:64 (default 384)");
  sub->add_option("--K", o->K, "code book sizes, e.g. 64,256 (default 256)");
  sub->add_option("--batch", o->batch, "batch sizes (default 1)");
  sub->add_option("--vary", o->vary,
                  "an axis and its values (repeatable): a hardware key (core.dma.engines=8,16), a model key "
                  "(model.key=...) or a run option (option.reuse=0,1; option.tp=1,4; see README)");
  sub->add_option("--layers", o->layers, "simulate the first N layers only (default 0 = all)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{65536}));
  sub->add_option("--down-schedule", o->down,
                  "down-projection schedule of every point (default weight-sbuf, one simulation per point; run's "
                  "default auto simulates all four and keeps the fastest)");
  add_deployment_options(sub, o->deployment);
  o->routing_seed_given = add_routing_options(sub, o->base);
  add_switch_options(sub, o->base);
  add_set_option(sub, o->base);
  sub->add_option("--jobs", o->jobs, "points in parallel (default: the CPUs this process may use)")->check(CLI::Range(0, 4096));
  sub->add_option("--point-time-limit", o->point_time_limit_s,
                  "seconds a point may run before it is stopped and recorded as an error (0 = no limit, at most 1e7)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e7));
  sub->add_option("--shard", o->shard, "run only the points with index % N == i (i/N, 0 <= i < N)");
  sub->add_option("--out", o->out, "output file: .csv, or .jsonl (.json) for JSON lines; another extension is refused (its folder is made)")->required();
  CLI::Option* resume = sub->add_flag("--resume", o->resume, "continue the sweep that wrote --out: skip the points already in it");
  sub->add_flag("--force", o->force, "replace an existing --out")->excludes(resume);
  sub->add_option("--progress-every", o->progress_every_s,
                  "when stderr is not a terminal: seconds between progress lines (0 = one per finished point)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e7));
  sub->add_option("--weights", o->weights,
                  "add quality columns (nmse): a checkpoint (.safetensors, index JSON or directory; names from the model "
                  "YAML's weights:) or synthetic[:hidden=256,intermediate=128,experts=8,seed=1,...]");
  sub->add_option("--weights-layer", o->weights_layer, "the layer --weights compresses (default: the first MoE layer)");
  sub->add_option("--weights-experts", o->weights_experts, "read only the first N experts of a checkpoint (default: all)");
  sub->callback([sub, o, &invocation] { run_sweep(*sub, invocation, *o); });

  register_merge_command(app, invocation);
}

}  // namespace stasim::cli
