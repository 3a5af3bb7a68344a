// Runs sweep points, each in its own forked process (a SystemC kernel runs once per process, and a crash or
// an error in one point cannot stop the others), at most `jobs` at a time. A point that fails is a row with
// status `invalid` (bad input: e.g. d does not divide H) or `error` (simulation error, or its process died)
// and the reason.
#pragma once

#include <functional>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_table.hpp"

namespace stasim {

// Runs one point in this process and returns its row (never throws for a bad point).
// `own_process`: the caller is a process that runs only this point (run_points' children), so a single
// simulation runs in it rather than in yet another child.
SweepRow run_point(const SweepPoint& point, const DataflowRegistry& registry, bool own_process = false);

// Runs the points in forked children; `on_row` is called in this process as each one finishes (in completion
// order). With `progress`, a done/total line with an ETA is redrawn on stderr.
void run_points(const std::vector<SweepPoint>& points, int jobs, bool progress, const DataflowRegistry& registry,
                const std::function<void(SweepRow)>& on_row);

}  // namespace stasim
