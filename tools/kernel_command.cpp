// `stasim kernel`: run a shipped kernel program (kernels/shipped_kernels.hpp) and report, as `stasim schedule` does.
#include <iostream>

#include "stasim/io.hpp"
#include "stasim/kernel.hpp"
#include "stasim/reports.hpp"
#include "stasim/stasim.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct KernelOptions {
  std::string name, hw;
  std::vector<std::string> args, sets;
  std::string json, trace, ops;
  bool list = false, quiet = false;
};

KernelArgs parse_args(const std::vector<std::string>& texts) {
  KernelArgs args;
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    std::int64_t value = 0;
    std::size_t used = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      try {
        value = std::stoll(text.substr(eq + 1), &used);
        ok = used == text.size() - eq - 1;
      } catch (...) {
        ok = false;
      }
    }
    if (!ok) throw InputError("--arg " + text + ": expected NAME=INTEGER (e.g. --arg M=256)");
    args[text.substr(0, eq)] = value;
  }
  return args;
}

void list_kernels() {
  for (const ShippedKernel& k : shipped_kernels()) {
    std::cout << k.name << "  (" << k.hardware << ")  " << k.description << "\n   ";
    for (const auto& [name, value] : k.defaults) std::cout << " --arg " << name << "=" << value;
    std::cout << '\n';
  }
}

void run_kernel_command(const CLI::App& sub, const Invocation& invocation, const KernelOptions& o) {
  if (o.list) return list_kernels();
  if (o.name.empty()) throw InputError("stasim kernel: name a kernel (stasim kernel --list shows them)");
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--json", o.json}, {"--trace", o.trace},
                                     {"--ops", o.ops}})
    check_output_path(option, path);
  const ShippedKernel& kernel = shipped_kernel(o.name);
  const KernelArgs args = kernel_args(kernel, parse_args(o.args));
  const std::string hw_name = o.hw.empty() ? kernel.hardware : o.hw;
  check_output_paths({{"--json", o.json}, {"--trace", o.trace}, {"--ops", o.ops},
                      {"--ops", o.ops.empty() ? "" : o.ops + ".meta.json"}},
                     {{"--hw", hw_option("--hw", hw_name)}});
  const KernelRun run = run_shipped_kernel(kernel.name, args, hw_name, o.sets);
  const KernelProgram& program = *run.program;
  const SimResult& result = run.result;
  ResolvedConfigs configs;
  configs.hardware.push_back(resolved_hardware(hw_name, o.sets));
  nlohmann::json prov = provenance(sub, invocation, configs_json(configs));
  prov["kernel"] = {{"name", kernel.name}, {"args", args}};
  if (!o.quiet) {
    std::cout << "kernel " << kernel.name;
    for (const auto& [name, value] : args) std::cout << ' ' << name << '=' << value;
    std::cout << '\n';
    print_summary(std::cout, program.graph(), program.hw(), result);
  }
  if (!o.json.empty()) {
    nlohmann::json doc = kernel_json(program, result);
    doc["provenance"] = prov;
    write_json_file(o.json, doc);
  }
  if (!o.trace.empty()) {
    TraceOptions options;
    options.provenance = prov;
    write_trace_file(o.trace, program.graph(), result, program.hw(), options);
  }
  if (!o.ops.empty()) {
    write_ops_file(o.ops, program.graph(), result);
    write_json_file(o.ops + ".meta.json", {{"provenance", prov}});
  }
}

}  // namespace

void register_kernel_command(CLI::App& app, const Invocation& invocation) {
  auto opts = std::make_shared<KernelOptions>();
  CLI::App* sub = app.add_subcommand("kernel", "Run a shipped kernel program (the NKI tutorials' kernels and more)");
  sub->add_option("name", opts->name, "kernel name (--list shows them)");
  sub->add_flag("--list", opts->list, "list the shipped kernels with their parameters");
  sub->add_option("--hw", opts->hw, "hardware name or YAML path (default: the one the kernel was measured on)");
  sub->add_option("--arg", opts->args, "a kernel parameter: NAME=INTEGER (repeatable, e.g. --arg M=256)");
  sub->add_option("--set", opts->sets, "override a hardware key: key.path=value (repeatable)");
  sub->add_option("--json", opts->json, "write the full result as JSON to FILE ('-' for stdout)");
  sub->add_option("--trace", opts->trace, "write a Chrome/Perfetto trace-event JSON timeline to FILE");
  sub->add_option("--ops", opts->ops, "write one CSV row per simulated op to FILE");
  sub->add_flag("-q,--quiet", opts->quiet, "print nothing but errors (no summary); the files named are still written");
  sub->callback([sub, opts, &invocation] { run_kernel_command(*sub, invocation, *opts); });
}

}  // namespace stasim::cli
