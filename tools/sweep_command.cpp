// `stasim sweep` (a grid of decode runs, each point in its own process) and `stasim merge` (joins the outputs of
// sharded sweeps into the file the unsharded sweep would have written).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <iostream>
#include <set>
#include <thread>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"
#include "tools/cli.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/output_lock.hpp"
#include "sim/studies/resolved_configs.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_quality.hpp"
#include "sim/studies/sweep_runner.hpp"
#include "sim/studies/sweep_table.hpp"

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
  bool resume = false;
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

bool dense_like(const std::string& dataflow) { return dataflow == "dense"; }

// A sweep YAML by shipped name (configs/sweeps/NAME.yaml) or path.
std::string sweep_config_path(const std::string& name) {
  std::string path = name;
  if (path.find('/') == std::string::npos && path.find(".yaml") == std::string::npos)
    path = "configs/sweeps/" + path + ".yaml";
  return resolve_config_path(path);
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
  if (spec.models.empty()) throw InputError("--models: name at least one model");
  if (spec.dataflows.empty()) throw InputError("--dataflows: name at least one dataflow");
  return spec;
}

// Bad input that concerns the whole grid fails before any point runs: unknown dataflows, models, hardware and
// --vary keys (an unknown key would fail every point). A bad value of a known key only fails its points.
void check_spec(const SweepSpec& spec, const DataflowRegistry& registry) {
  for (const std::string& name : spec.dataflows) registry.find(name);
  std::string hw_path = resolve_hw(spec.hw);
  load_hardware_document(hw_path, shipped_hw_path);
  for (const std::string& model : spec.models) load_yaml_file(resolve_model(model));
  for (const auto& [key, values] : spec.vary) {
    bool model_key = key.rfind("model.", 0) == 0;
    std::string file = model_key ? resolve_model(spec.models.front()) : hw_path;
    YamlNode root = model_key ? load_yaml_file(file) : load_hardware_document(file, shipped_hw_path);
    apply_overrides(root, {(model_key ? key.substr(6) : key) + "=" + values.front()}, file);
  }
}

// Exactly two decimal integers around one slash: "0.9/2", "1/2x", "0/2/7" or " 1/2" are refused, not read as
// the numbers they start with.
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count) {
  auto digits = [](const std::string& part) {
    return !part.empty() && part.size() <= 9 && part.find_first_not_of("0123456789") == std::string::npos;
  };
  std::size_t slash = text.find('/');
  std::string first = slash == std::string::npos ? "" : text.substr(0, slash);
  std::string second = slash == std::string::npos ? "" : text.substr(slash + 1);
  if (!digits(first) || !digits(second)) throw InputError("--shard '" + text + "': expected i/N with 0 <= i < N");
  index = std::stoul(first);
  count = std::stoul(second);
  if (count == 0 || index >= count) throw InputError("--shard '" + text + "': expected i/N with 0 <= i < N");
}

// --resume continues the same sweep: every row already in --out must be a point of this grid, at its index.
void check_resumed_rows(const SweepTable& table, const std::vector<SweepPoint>& grid, const std::string& out) {
  std::map<std::string, std::size_t> index_of;
  for (const SweepPoint& p : grid) index_of.emplace(p.key(), p.index);
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const std::string key = table.rows[i]["key"].get<std::string>();
    auto found = index_of.find(key);
    if (found == index_of.end() || found->second != table.rows[i]["point"].get<std::size_t>())
      throw InputError(out + ":" + std::to_string(table.lines[i]) + ": '" + key +
                       "' is not a point of this sweep's grid (--resume continues the sweep that wrote the file; "
                       "write a different grid to another --out)");
  }
}

// Bytes of `path` up to and including its last newline: what a killed sweep wrote completely.
std::uintmax_t complete_lines_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t last = text.rfind('\n');
  return last == std::string::npos ? 0 : last + 1;
}

// A number printed with 6 significant digits and read back: the short decimal a file keeps, the same on resume.
double six_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return std::strtod(text, nullptr);
}

// Quality cells (nmse, quality_bits_per_weight) per point key, each representation built once. A
// representation that does not fit the measured layer leaves its points without an nmse and says why.
std::map<std::string, SweepRow> quality_cells(const std::vector<SweepPoint>& points, SweepQuality& quality,
                                              std::map<std::string, ModelSpec>& models, const DataflowRegistry& registry) {
  std::map<std::string, SweepRow> cells;
  std::map<std::string, std::string> failed;  // representation -> reason, reported once
  for (const SweepPoint& p : points) {
    Representation rep = registry.find(p.dataflow).representation(p.d, p.r, p.K);
    try {
      LayerQuality q = quality.quality(models.at(p.model), rep);
      cells[p.key()] = {{"nmse", six_digits(q.nmse)}, {"quality_bits_per_weight", std::round(q.bits_per_weight * 1e4) / 1e4}};
    } catch (const InputError& e) {
      std::string what = p.model + " " + rep.describe();
      if (failed.emplace(what, e.what()).second)
        std::fprintf(stderr, "quality: %s: no nmse (%s)\n", what.c_str(), e.what());
    }
  }
  return cells;
}

// What the sweep read: its hardware (without the --vary keys, which the options list) and each model.
ResolvedConfigs sweep_configs(const SweepSpec& spec) {
  ResolvedConfigs configs;
  configs.hardware.push_back(resolved_hardware(spec.hw));
  for (const std::string& model : spec.models) configs.models.push_back(resolved_model(model));
  return configs;
}

void run_sweep(const CLI::App& sub, const Invocation& invocation, const SweepOptions& o) {
  DataflowRegistry registry;
  register_builtin(registry);
  SweepSpec spec = build_spec(o);
  check_spec(spec, registry);
  ResolvedConfigs configs = sweep_configs(spec);
  if (!o.config.empty()) configs.files.push_back({"sweep", o.config, sweep_config_path(o.config)});
  const nlohmann::json meta = {{"provenance", provenance(sub, invocation, configs_json(configs))}};
  // Rows are appended to --out and the file is finally renamed over: a device or FIFO is refused, and so is
  // an --out that names one of the sweep's inputs.
  require_replaceable(o.out, "the sweep output");
  std::vector<NamedPath> inputs = {{"--hw", resolve_hw(spec.hw)}};
  if (!o.config.empty()) inputs.push_back({"--config", sweep_config_path(o.config)});
  for (const std::string& model : spec.models) inputs.push_back({"--models", resolve_model(model)});
  check_output_paths({{"--out", o.out}, {"--out", o.out + ".meta.json"}}, inputs);
  std::vector<SweepPoint> grid = expand(spec, dense_like);
  if (grid.empty()) throw InputError("the grid is empty");
  int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
  std::size_t shard = 0, shards = 1;
  if (!o.shard.empty()) parse_shard(o.shard, shard, shards);
  std::vector<SweepPoint> mine;
  for (const SweepPoint& p : grid)
    if (p.index % shards == shard) mine.push_back(p);

  // Held until the output is final: a second sweep on the same --out stops here and names this one.
  OutputLock lock(o.out);
  std::set<std::string> have;
  SweepTable previous;
  if (o.resume) {
    previous = read_sweep_table(o.out);
    check_resumed_rows(previous, grid, o.out);
    for (const SweepRow& row : previous.rows) have.insert(row.value("key", std::string()));
  }
  std::vector<SweepPoint> todo;
  for (const SweepPoint& p : mine)
    if (!have.count(p.key())) todo.push_back(p);

  bool jsonl = is_jsonl_path(o.out);
  bool fresh = !o.resume || previous.rows.empty();
  // A killed sweep can leave a last line without its newline: it is cut off, so new rows start on a line of
  // their own and the file never holds a broken line in its middle.
  if (!fresh) std::filesystem::resize_file(o.out, complete_lines_size(o.out));
  OutputAppender out(o.out, fresh, "the sweep output");
  if (fresh && !jsonl) out.append(csv_header() + "\n");

  auto begin = std::chrono::steady_clock::now();
  std::map<std::string, SweepRow> cells;
  if (quality) cells = quality_cells(todo, *quality, models, registry);
  run_points(todo, jobs, ::isatty(STDERR_FILENO) == 1, registry, [&](SweepRow row) {
    auto found = cells.find(row.value("key", std::string()));
    if (found != cells.end() && row.value("status", std::string()) == "ok") row.update(found->second);
    out.append(row_line(row, jsonl) + "\n");  // written at once: a killed sweep loses only the points in flight
  }, o.point_time_limit_s);
  out.close();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  std::vector<SweepRow> rows = read_sweep_rows(o.out);
  finalize(rows);
  write_sweep_rows(o.out, rows);
  write_json_file(o.out + ".meta.json", meta);

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
              "%s; wrote %s\n",
              mine.size(), shards > 1 ? (" (shard " + o.shard + " of " + std::to_string(grid.size()) + ")").c_str() : "",
              todo.size(), jobs, seconds, mine.size() - todo.size(), ok, invalid, errors, fronts.c_str(), o.out.c_str());
  if (ok == 0) throw InputError("no valid point in the grid (first reason: " + first_reason + ")");
}

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

void run_merge(const CLI::App& sub, const Invocation& invocation, const MergeOptions& o) {
  require_replaceable(o.out, "the merged output");
  std::vector<SweepTable> parts;
  for (const std::string& path : o.inputs) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw InputError(path + ": no such sweep output");
    parts.push_back(read_sweep_table(path));
  }
  check_one_grid(parts, o.inputs);
  std::vector<SweepRow> rows;
  for (SweepTable& part : parts) rows.insert(rows.end(), part.rows.begin(), part.rows.end());
  finalize(rows);
  write_sweep_rows(o.out, rows);
  // The merged file's provenance: this merge, and each input's own (its sweep's command line and configs).
  nlohmann::json inputs = nlohmann::json::object();
  for (const std::string& path : o.inputs) {
    std::ifstream meta(path + ".meta.json");
    nlohmann::json doc = nlohmann::json::parse(meta, nullptr, false);
    inputs[path] = meta && !doc.is_discarded() && doc.contains("provenance") ? doc["provenance"] : nlohmann::json();
  }
  write_json_file(o.out + ".meta.json", {{"provenance", provenance(sub, invocation)}, {"inputs", inputs}});
  std::printf("merge: %zu rows from %zu files; wrote %s\n", rows.size(), o.inputs.size(), o.out.c_str());
}

}  // namespace

void register_sweep_commands(CLI::App& app, const Invocation& invocation) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand("sweep", "Run a grid of decode simulations (in a pool of --jobs worker processes)");
  sub->add_option("--config", o->config, "sweep YAML (configs/sweeps/NAME.yaml or a path); options below override it");
  sub->add_option("--models", o->models, "comma-separated models (default qwen3-30b-a3b)");
  sub->add_option("--dataflows", o->dataflows, "comma-separated dataflows (default dense,cardan)");
  sub->add_option("--hw", o->hw, "hardware name or YAML (default trn3-calibrated, as run)");
  sub->add_option("--d", o->d, "VQ block lengths: 2,4,8 or start:stop:step (default 8)");
  sub->add_option("--r", o->r, "low ranks, e.g. 0:512:64 (default 384)");
  sub->add_option("--K", o->K, "code book sizes, e.g. 64,256 (default 256)");
  sub->add_option("--batch", o->batch, "batch sizes (default 1)");
  sub->add_option("--vary", o->vary, "a config key and its values: core.dma.engines=8,16 or model.key=... (repeatable)");
  sub->add_option("--layers", o->layers, "simulate the first N layers only (default 0 = all)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{65536}));
  sub->add_option("--down-schedule", o->down, "down-projection schedule of every point (default weight-sbuf; auto = 4 runs per point)");
  sub->add_option("--jobs", o->jobs, "points in parallel (default: all cores)")->check(CLI::Range(0, 4096));
  sub->add_option("--point-time-limit", o->point_time_limit_s,
                  "seconds a point may run before it is stopped and recorded as an error (0 = no limit)")
      ->capture_default_str()->check(CLI::Range(0.0, 1e7));
  sub->add_option("--shard", o->shard, "run only the points with index % N == i (i/N, 0 <= i < N)");
  sub->add_option("--out", o->out, "output file: .csv, or .jsonl for JSON lines")->required();
  sub->add_flag("--resume", o->resume, "skip the points already in --out");
  sub->add_option("--weights", o->weights,
                  "add quality columns (nmse): a checkpoint (.safetensors, index JSON or directory; names from the model "
                  "YAML's weights:) or synthetic[:hidden=256,intermediate=128,experts=8,seed=1,...]");
  sub->add_option("--weights-layer", o->weights_layer, "the layer --weights compresses (default: the first MoE layer)");
  sub->add_option("--weights-experts", o->weights_experts, "read only the first N experts of a checkpoint (default: all)");
  sub->callback([sub, o, &invocation] { run_sweep(*sub, invocation, *o); });

  auto m = std::make_shared<MergeOptions>();
  CLI::App* merge = app.add_subcommand("merge", "Merge sweep outputs (e.g. of --shard runs) into one file");
  merge->add_option("inputs", m->inputs, "sweep outputs (CSV or JSON lines)")->required();
  merge->add_option("--out", m->out, "merged output: .csv or .jsonl")->required();
  merge->callback([merge, m, &invocation] { run_merge(*merge, invocation, *m); });
}

}  // namespace stasim::cli
