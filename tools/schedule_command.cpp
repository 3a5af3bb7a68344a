// `stasim schedule`: run a hand-written schedule YAML on a hardware config and report.
#include <iostream>

#include "sim/core/hardware_config.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/kernel/simulate.hpp"
#include "tools/cli.hpp"
#include "sim/reports/trace_output.hpp"

namespace stasim::cli {
namespace {

struct ScheduleOptions {
  std::string hw = "configs/hw/trn3.yaml";
  std::string schedule = "configs/schedules/expert_ffn_tile.yaml";
  std::vector<std::string> sets;
  std::string json, trace, dot;
  bool quiet = false;
};

void run_schedule(const ScheduleOptions& o) {
  std::string hw_path = resolve_config_path(o.hw);
  std::string schedule_path = resolve_config_path(o.schedule);
  check_output_paths({{"--json", o.json}, {"--trace", o.trace}, {"--dot", o.dot}},
                     {{"--schedule", schedule_path}, {"--hw", hw_path}});
  HardwareConfig hw = load_hardware(hw_path, o.sets);
  LoadedSchedule schedule = load_schedule(schedule_path);
  SimResult result;
  try {
    result = simulate(schedule.graph, hw, schedule.locator(), schedule.buffer_locator());
  } catch (const DeadlockError& e) {
    // The schedule is the user's: a schedule that cannot complete is bad input, not a simulator failure.
    throw InputError(std::string(e.what()) + "\n(" + schedule_path +
                     " cannot complete on " + hw.name + ": reorder the ops or the PSUM banks of the wait cycle)");
  }
  if (!o.quiet) {
    std::cout << "schedule " << schedule_path << '\n';
    print_summary(std::cout, schedule.graph, hw, result);
  }
  if (!o.json.empty()) write_json_file(o.json, result_json(schedule.graph, hw, result));
  if (!o.trace.empty()) write_trace_file(o.trace, schedule.graph, result, hw, "");
  if (!o.dot.empty()) write_dot_file(o.dot, schedule.graph, result);
}

}  // namespace

void register_bench_command(CLI::App& app);

void register_schedule_commands(CLI::App& app) {
  auto opts = std::make_shared<ScheduleOptions>();
  CLI::App* sub = app.add_subcommand("schedule", "Run a hand-written schedule YAML and report its timing");
  sub->add_option("--hw", opts->hw, "hardware config YAML")->capture_default_str();
  sub->add_option("--schedule", opts->schedule, "schedule YAML (ops in program order)")->capture_default_str();
  sub->add_option("--set", opts->sets, "override a hardware key: key.path=value (repeatable)");
  sub->add_option("--json", opts->json, "write the full result as JSON to FILE ('-' for stdout)");
  sub->add_flag("--quiet", opts->quiet, "print no summary");
  sub->add_option("--trace", opts->trace, "write a Chrome/Perfetto trace-event JSON timeline to FILE");
  sub->add_option("--dot", opts->dot, "write the schedule graph for Graphviz to FILE (critical path in red)");
  sub->callback([opts] { run_schedule(*opts); });
  register_bench_command(app);
}

}  // namespace stasim::cli
