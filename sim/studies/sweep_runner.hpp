// Runs sweep points in the worker pool (sim/studies/worker_pool.hpp): `jobs` long-lived processes, each
// simulating point after point on its own kernel, so a crash or a hang of one point cannot stop the others. A
// point that fails is a row with status `invalid` (bad input: e.g. d does not divide H) or `error` (simulation
// error, its process died, or it ran past the time limit) and the reason.
#pragma once

#include <functional>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_table.hpp"

namespace stasim {

// Runs one point in this process and returns its row (never throws for a bad point).
SweepRow run_point(const SweepPoint& point, const DataflowRegistry& registry);

// Progress on stderr: none, one line redrawn in place (a terminal), or whole lines at most every `every_s`
// seconds (a log file: a batch job's stderr), each with done/total, the statuses so far, elapsed time and ETA.
struct SweepProgress {
  enum class Mode { none, redraw, lines };
  Mode mode = Mode::none;
  double every_s = 5;  // lines: the least time between two lines (0: a line per finished point)
};

// Runs the points in the workers; `on_row` is called in this process as each one finishes (in completion
// order). A point running longer than `point_time_limit_s` (0: no limit; above WorkerPool::kMaxTimeLimitS taken
// as that) is stopped and becomes an `error` row. `on_wait` is WorkerPool::on_wait: called while the points run,
// it may throw to stop them (their workers are killed).
void run_points(const std::vector<SweepPoint>& points, int jobs, const SweepProgress& progress,
                const DataflowRegistry& registry, const std::function<void(SweepRow)>& on_row,
                double point_time_limit_s = 0, const std::function<void()>& on_wait = {});
// The same with `progress` true: redrawn in place; false: none.
void run_points(const std::vector<SweepPoint>& points, int jobs, bool progress, const DataflowRegistry& registry,
                const std::function<void(SweepRow)>& on_row, double point_time_limit_s = 0,
                const std::function<void()>& on_wait = {});

}  // namespace stasim
