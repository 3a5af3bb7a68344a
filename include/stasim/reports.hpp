// The public header for the files and tables a result is written to, as `stasim run`, `compare`, `schedule`
// and `kernel` write them: the stable JSON document and the human summary of a SimResult, the Perfetto trace,
// the DOT graph and the per-op CSV (--trace, --dot, --ops), compare's CSV table, and the check that a table
// file's extension says its format.
//
//   stasim::print_summary(std::cout, graph, hw, result);                 // what `stasim schedule` prints
//   stasim::write_json_file("result.json", stasim::result_json(graph, hw, result));
//   stasim::write_trace_file("trace.json", graph, result, hw, {});       // open it in Perfetto
//
// Declared in sim/reports/result_report.hpp, sim/reports/trace_output.hpp, sim/studies/compare_table.hpp and
// sim/studies/sweep_table.hpp (check_table_extension, the one CSV writer).
#pragma once

#include "sim/reports/result_report.hpp"
#include "sim/reports/trace_output.hpp"
#include "sim/studies/compare_table.hpp"
#include "sim/studies/sweep_table.hpp"
