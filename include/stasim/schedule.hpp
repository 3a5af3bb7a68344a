// The public header for schedules as data, below the decode runs of stasim.hpp: a schedule graph read from a
// hand-written YAML (`stasim schedule`), drawn as a synthetic random DAG or built for one decode step by a
// dataflow (`stasim bench`), validated against a hardware config and simulated, then reported.
//
//   stasim::HardwareConfig hw = stasim::load_hardware_config("trn3");
//   stasim::LoadedSchedule schedule = stasim::load_schedule(stasim::resolve_config_path(
//       "configs/schedules/expert_ffn_tile.yaml"));
//   stasim::SimResult result = stasim::simulate(schedule.graph, hw, schedule.locator(), schedule.buffer_locator());
//   stasim::print_summary(std::cout, schedule.graph, hw, result);   // what `stasim schedule` prints
//
// Declared in sim/core/ (hardware_config.hpp, schedule_yaml.hpp, graph_validation.hpp), sim/kernel/simulate.hpp
// (simulate, or run_kernel then summarize), sim/reports/ (result_report.hpp: summary, JSON, DOT, per-op CSV;
// trace_output.hpp: the Perfetto trace) and dataflows/ (random_dag.hpp, decode_step.hpp). A simulation that
// never finishes throws stasim::DeadlockError.
#pragma once

#include "dataflows/decode_step.hpp"
#include "dataflows/random_dag.hpp"
#include "sim/core/graph_validation.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/kernel/simulate.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/reports/trace_output.hpp"
#include "stasim/stasim.hpp"
