// `stasim schedule`: run a hand-written schedule YAML on a hardware config and report.
#include <iostream>

#include "stasim/io.hpp"
#include "stasim/schedule.hpp"
#include "stasim/stasim.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct ScheduleOptions {
  std::string hw = "trn3";
  std::string schedule = "configs/schedules/expert_ffn_tile.yaml";
  std::vector<std::string> sets;
  std::string json, trace, dot, ops, dump_config;
  bool quiet = false;
};

void run_schedule(const CLI::App& sub, const Invocation& invocation, const ScheduleOptions& o) {
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--json", o.json}, {"--trace", o.trace},
                                     {"--dot", o.dot}, {"--ops", o.ops}, {"--dump-config", o.dump_config}})
    check_output_path(option, path);
  std::string schedule_path = resolve_config_path(o.schedule);
  const std::vector<NamedPath> outputs = {{"--json", o.json}, {"--trace", o.trace}, {"--dot", o.dot}, {"--ops", o.ops},
                                          {"--ops", o.ops.empty() ? "" : o.ops + ".meta.json"},
                                          {"--dump-config", o.dump_config}};
  const std::vector<NamedPath> inputs = {{"--schedule", schedule_path}, {"--hw", hw_option("--hw", o.hw)}};
  check_output_paths(outputs, inputs);
  HardwareConfig hw = load_hardware_config(o.hw, o.sets);
  ResolvedConfigs configs;
  configs.hardware.push_back(resolved_hardware(o.hw, o.sets));
  configs.files.push_back({"schedule", o.schedule, schedule_path});
  LoadedSchedule schedule = load_schedule(schedule_path);
  check_output_paths(outputs, inputs);  // again with every file read: the hardware's base: chain
  if (!o.dump_config.empty()) write_text_file(o.dump_config, config_dump_text(configs), "config dump");
  const nlohmann::json prov = provenance(sub, invocation, configs_json(configs));
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
  if (!o.json.empty()) {
    nlohmann::json doc = result_json(schedule.graph, hw, result);
    doc["provenance"] = prov;
    write_json_file(o.json, doc);
  }
  if (!o.trace.empty()) {
    TraceOptions options;
    options.provenance = prov;
    write_trace_file(o.trace, schedule.graph, result, hw, options);
  }
  if (!o.dot.empty()) write_dot_file(o.dot, schedule.graph, result);
  if (!o.ops.empty()) {
    write_ops_file(o.ops, schedule.graph, result);
    write_json_file(o.ops + ".meta.json", {{"provenance", prov}});
  }
}

}  // namespace

void register_bench_command(CLI::App& app);

void register_schedule_commands(CLI::App& app, const Invocation& invocation) {
  auto opts = std::make_shared<ScheduleOptions>();
  CLI::App* sub = app.add_subcommand("schedule", "Run a hand-written schedule YAML and report its timing");
  sub->add_option("--hw", opts->hw, "hardware name (configs/hw/NAME.yaml) or YAML path")->capture_default_str();
  sub->add_option("--schedule", opts->schedule, "schedule YAML (ops in program order)")->capture_default_str();
  sub->add_option("--set", opts->sets, "override a hardware key: key.path=value (repeatable)");
  sub->add_option("--json", opts->json, "write the full result as JSON to FILE ('-' for stdout)");
  sub->add_flag("-q,--quiet", opts->quiet, "print nothing but errors (no summary); the files named are still written");
  sub->add_option("--trace", opts->trace, "write a Chrome/Perfetto trace-event JSON timeline to FILE");
  sub->add_option("--dot", opts->dot, "write the schedule graph for Graphviz to FILE (critical path in red)");
  sub->add_option("--ops", opts->ops, "write one CSV row per simulated op to FILE");
  sub->add_option("--dump-config", opts->dump_config, "write the resolved hardware config (--set applied) as YAML to FILE");
  sub->callback([sub, opts, &invocation] { run_schedule(*sub, invocation, *opts); });
  register_bench_command(app);
}

}  // namespace stasim::cli
