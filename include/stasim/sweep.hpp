// The public header for sweeps: a grid of decode runs (models x dataflows x batch x (d, r, K) x --vary axes),
// each point in a worker process, as `stasim sweep` runs it. Build a SweepSpec (or read a sweep YAML), check it,
// run it; the rows are the ones `stasim sweep` writes, one per point, finalized (speedup_vs_dense, pareto).
//
//   stasim::Simulator sim;
//   stasim::SweepSpec spec = stasim::load_sweep_config("qwen3-30b-a3b-dr-k256");  // or a path, or fields set by hand
//   stasim::check_sweep(spec, sim.registry());      // bad input for the whole grid: InputError before any point
//   std::vector<stasim::SweepRow> rows = stasim::run_sweep(spec, sim.registry(), {});
//
// A bad value of a known key (a d that divides no hidden size) only fails its points: rows with status
// `invalid` and the reason. Link the CMake target `stasim_library`.
//
// What `stasim sweep` and `stasim merge` build on besides, for a sweep's output file: its rows (sweep_table.hpp:
// CSV or JSON lines, finalize), the grid's fingerprint for --resume and merge (sweep_fingerprint.hpp), the lock
// on --out (output_lock.hpp), the quality columns of --weights (sweep_quality.hpp), --shard, the --resume
// checks and the configs recorded (sweep_output.hpp) and the merge of shards (sweep_merge.hpp), in sim/studies/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/studies/output_lock.hpp"
#include "sim/studies/request_axes.hpp"
#include "sim/studies/sweep_fingerprint.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_merge.hpp"
#include "sim/studies/sweep_output.hpp"
#include "sim/studies/sweep_quality.hpp"
#include "sim/studies/sweep_runner.hpp"
#include "sim/studies/sweep_table.hpp"
#include "stasim/stasim.hpp"
#include "workloads/routing.hpp"

namespace stasim {

// A sweep YAML by shipped name (configs/sweeps/NAME.yaml, `stasim list`'s sweeps) or path; InputError naming the
// file, line and key of a bad one.
inline SweepSpec load_sweep_config(const std::string& name) { return load_sweep(resolve_sweep(name)); }

// Bad input that concerns the whole grid, as `stasim sweep` refuses it before any point runs: no model or
// dataflow, unknown dataflows, models and hardware, a --vary key no config has (it would fail every point) or
// given twice, an option axis that a fixed option also sets, a routes file that does not fit a model.
inline void check_sweep(const SweepSpec& spec, const DataflowRegistry& registry) {
  if (spec.models.empty()) throw InputError("--models: name at least one model");
  if (spec.dataflows.empty()) throw InputError("--dataflows: name at least one dataflow");
  check_vary_keys(spec);
  for (const auto& [key, values] : spec.vary) {
    if (!is_option_axis(key)) continue;
    const std::string fixed = fixed_option_for(spec.base, key);
    if (!fixed.empty())
      throw InputError("--vary " + key + " and " + fixed + " both set " + fixed + "'s value: keep the axis or the fixed option");
  }
  for (const std::string& name : spec.dataflows) registry.find(name);
  const std::string hw_path = resolve_hw(spec.hw);
  load_hardware_document(hw_path, shipped_hw_path);
  for (const std::string& model : spec.models) load_yaml_file(resolve_model(model));
  // The --set values apply to every point: a key no config has fails here, once.
  resolved_hardware(spec.hw, spec.base.sets);
  for (const std::string& model : spec.models) resolved_model(model, spec.base.sets);
  for (const auto& [key, values] : spec.vary) {
    if (is_option_axis(key)) continue;  // its values were checked when parsed (request_axes.hpp)
    const bool model_key = key.rfind("model.", 0) == 0;
    const std::string file = model_key ? resolve_model(spec.models.front()) : hw_path;
    YamlNode root = model_key ? load_yaml_file(file) : load_hardware_document(file, shipped_hw_path);
    apply_overrides(root, {(model_key ? key.substr(6) : key) + "=" + values.front()}, file);
  }
  if (!spec.base.routes.empty())
    for (const std::string& model : spec.models) read_routing_file(spec.base.routes, load_model(resolve_model(model)).experts);
}

struct SweepRunOptions {
  int jobs = 1;                     // worker processes
  double point_time_limit_s = 600;  // a point running longer is stopped and becomes an `error` row (0: no limit)
  SweepProgress progress;           // on stderr, as `stasim sweep` prints it (none by default)
  // Called in this process after each finished point with the points done so far and the grid's size; it may
  // throw to stop the sweep (the workers are killed), as may `on_wait`, called while the points run.
  std::function<void(std::size_t done, std::size_t total)> on_point;
  std::function<void()> on_wait;
};

// Runs every point of the grid (checked by check_sweep) and returns the finalized rows in point order.
inline std::vector<SweepRow> run_sweep(const SweepSpec& spec, const DataflowRegistry& registry,
                                       const SweepRunOptions& options) {
  const std::vector<SweepPoint> grid = expand(spec, registry);
  if (grid.empty()) throw InputError("the grid is empty");
  std::vector<SweepRow> rows;
  run_points(grid, options.jobs > 0 ? options.jobs : 1, options.progress, registry, [&](SweepRow row) {
    rows.push_back(std::move(row));
    if (options.on_point) options.on_point(rows.size(), grid.size());
  }, options.point_time_limit_s, options.on_wait);
  finalize(rows);
  return rows;
}

}  // namespace stasim
