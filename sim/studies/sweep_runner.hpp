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

// Runs the points in the workers; `on_row` is called in this process as each one finishes (in completion
// order). A point running longer than `point_time_limit_s` (0: no limit) is stopped and becomes an `error` row.
// With `progress`, a done/total line with an ETA is redrawn on stderr.
void run_points(const std::vector<SweepPoint>& points, int jobs, bool progress, const DataflowRegistry& registry,
                const std::function<void(SweepRow)>& on_row, double point_time_limit_s = 0);

}  // namespace stasim
