// `stasim calibrate` (fit the unknown hardware parameters to the published figures, write the overlay) and
// `stasim validate` (predict every published figure with a hardware config and compare, within tolerances).
#include <iostream>

#include "stasim/calibration.hpp"
#include "stasim/io.hpp"
#include "stasim/reports.hpp"
#include "stasim/stasim.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

const char* kDefaultReference = "configs/reference/published.yaml";

struct CalibrateOptions {
  std::string reference = kDefaultReference;
  std::string output = "configs/hw/trn3-calibrated.yaml";
  FitOptions fit;
  bool quiet = false;
  bool leave_one_out = false;
  std::string json;
};

struct ValidateOptions {
  std::string reference = kDefaultReference;
  std::string hw = "trn3-calibrated";
  std::string down = "weight-sbuf";
  std::vector<std::string> sets;
  std::vector<std::string> options;
  std::string json, dump_config;
  bool quiet = false;
  bool report_only = false;
  bool kernels = false;
};

constexpr const char* kKernelReference = "configs/reference/kernels.yaml";

// `validate --kernels`: every kernel target on the hardware it was measured on.
void validate_kernels(const CLI::App& validate, const Invocation& invocation, const ValidateOptions& val) {
  const std::string reference = val.reference == kDefaultReference ? kKernelReference : val.reference;
  check_output_path("--json", val.json);
  KernelReference ref = load_kernel_reference(resolve_config_path(reference));
  std::vector<KernelCheck> checks = check_kernels(ref, val.sets);
  if (!val.quiet) {
    std::cout << "kernels against " << reference << "\n\n";
    print_kernel_checks(std::cout, checks);
  }
  if (!val.json.empty()) {
    nlohmann::json doc = kernel_checks_json(checks);
    ResolvedConfigs configs;
    configs.files.push_back({"reference", reference, resolve_config_path(reference)});
    doc["provenance"] = provenance(validate, invocation, configs_json(configs));
    write_json_file(val.json, doc);
  }
  int misses = 0;
  for (const KernelCheck& c : checks) misses += c.pass ? 0 : 1;
  if (misses && !val.report_only)
    throw CheckFailed(std::to_string(misses) + " of " + std::to_string(checks.size()) +
                      " kernel targets out of tolerance (--report-only reports without failing)");
}

}  // namespace

void register_calibration_commands(CLI::App& app, const Invocation& invocation) {
  auto registry = std::make_shared<DataflowRegistry>();
  register_builtin(*registry);

  auto cal = std::make_shared<CalibrateOptions>();
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Fit the hardware parameters nothing public gives to the published figures; write an overlay");
  calibrate->add_option("--reference", cal->reference, "reference figures (YAML)")->capture_default_str();
  calibrate->add_option("--hw", cal->fit.base_hw, "base hardware (name or path) the overlay changes")->capture_default_str();
  CLI::Option* output_given =
      calibrate->add_option("--out", cal->output, "overlay to write, anywhere (default: the shipped overlay; "
                            "--output is the old spelling)")
          ->capture_default_str();
  calibrate->add_option("--max-evaluations", cal->fit.max_evaluations, "search budget; a fit still improving at the end "
                        "has not converged and writes nothing")->capture_default_str();
  calibrate->add_flag("-q,--quiet", cal->quiet, "print nothing but errors (no progress, no table); the overlay is still written");
  calibrate->add_flag("--leave-one-out", cal->leave_one_out,
                      "after the fit, refit without each target in turn and report how far its prediction moves "
                      "(one fit per target; writes the overlay of the full fit as usual)");
  calibrate->add_option("--json", cal->json, "write the fit (and leave-one-out) report as JSON to FILE ('-' for stdout)");
  calibrate->add_option("--set", cal->fit.sets,
                        "fix a hardware key of the base for the whole fit (key.path=value, repeatable; a structural "
                        "what-if such as core.dma.exchange_engine=gpsimd_dma); written into the overlay");
  calibrate->add_option("--free", cal->fit.frees,
                        "also fit a hardware key the declared parameters leave fixed, between two bounds "
                        "(key.path=LOW:HIGH, repeatable; e.g. core.engines.gpsimd.swdge_descriptor_cycles=1:64); "
                        "reported and written like the declared parameters");
  calibrate->add_option("--option", cal->fit.options,
                        "a run option of every reference run (NAME=VALUE, repeatable; the names of sweep's option.* "
                        "axes, e.g. fused_gate_up_exchange=1): a kernel variant the fit assumes; listed in the "
                        "overlay's header, to be given to validate too");
  calibrate->callback([calibrate, cal, registry, output_given, &invocation] {
    if (cal->fit.max_evaluations < 1) throw InputError("--max-evaluations must be at least 1");
    ReferenceData ref = load_reference(resolve_config_path(cal->reference), *registry);
    // The default refreshes the shipped overlay in the data folder; a given --out is written where it says.
    std::string output = output_given->count() > 0 ? cal->output : resolve_config_path(cal->output);
    check_output_path("--out", output);
    require_replaceable(output, "the calibrated overlay");  // before the fit, not after it
    check_output_path("--json", cal->json);
    check_output_writable("--out", output);
    check_output_writable("--json", cal->json);
    const std::string base_path = hw_option("--hw", cal->fit.base_hw);
    load_hardware_config(cal->fit.base_hw, {});  // reads the base: chain, checked against the outputs
    check_output_paths({{"--out", output}, {"--json", cal->json}},
                       {{"--reference", resolve_config_path(cal->reference)}, {"--hw", base_path}});
    const std::string base = overlay_base_reference(base_path, output);
    check_fixed_sets(cal->fit);
    cal->fit.options = reference_run_options(cal->fit.options);
    const std::vector<CalibrationParameter> params = fit_parameters(cal->fit);  // a bad --free: exit 2 before the fit
    ResolvedConfigs configs;
    configs.hardware.push_back(resolved_hardware(cal->fit.base_hw, cal->fit.sets));
    configs.files.push_back({"reference", cal->reference, resolve_config_path(cal->reference)});
    const nlohmann::json prov = provenance(*calibrate, invocation, configs_json(configs));
    std::ostream* progress = cal->quiet ? nullptr : &std::cerr;
    FitResult fit = fit_calibration(ref, cal->fit, *registry, progress);
    if (!fit.converged) throw SimulationError("calibration did not converge: " + fit.message + "; nothing written");
    measure_sensitivity(ref, cal->fit, *registry, fit);
    replace_output_file(output, calibrated_overlay(ref, cal->fit, fit, base), "the calibrated overlay");
    std::cout << "wrote " << output << " (" << fit.evaluations << " evaluations)\n";
    print_predictions(std::cout, fit.predictions);
    print_fit_parameters(std::cout, params, fit);
    nlohmann::json doc = fit_json(ref, params, fit);
    if (cal->leave_one_out) {
      std::vector<LeftOut> rows = leave_one_out(ref, cal->fit, *registry, fit, progress);
      print_leave_one_out(std::cout, rows);
      doc["leave_one_out"] = leave_one_out_json(rows);
    }
    doc["provenance"] = prov;
    if (!cal->json.empty()) write_json_file(cal->json, doc);
  });

  auto val = std::make_shared<ValidateOptions>();
  CLI::App* validate = app.add_subcommand("validate", "Predict every published figure and compare within tolerances");
  validate->add_option("--reference", val->reference, "reference figures (YAML)")->capture_default_str();
  validate->add_option("--hw", val->hw, "hardware name (configs/hw/NAME.yaml) or YAML path")->capture_default_str();
  validate->add_option("--down-schedule", val->down, "down schedule of every run (auto simulates all four)")
      ->capture_default_str();
  validate->add_option("--set", val->sets, "override a hardware key (key.path=value)");
  validate->add_option("--option", val->options,
                       "a run option of every reference run (NAME=VALUE, repeatable; e.g. fused_gate_up_exchange=1)");
  validate->add_option("--json", val->json, "write the table as JSON to FILE ('-' for stdout)");
  validate->add_flag("-q,--quiet", val->quiet, "print nothing but errors (no table); the exit code still says the verdict");
  validate->add_flag("--report-only", val->report_only,
                     "exit 0 even when a target is out of tolerance or a fact does not hold (for exploring)");
  validate->add_option("--dump-config", val->dump_config,
                       "write the resolved hardware config (base merged, --set applied) as YAML to FILE");
  CLI::Option* kernels = validate->add_flag(
      "--kernels", val->kernels,
      "check the kernel reference (configs/reference/kernels.yaml) instead: each shipped kernel on the hardware it "
      "was measured on");
  for (const char* name : {"--hw", "--down-schedule", "--option", "--dump-config"})
    kernels->excludes(validate->get_option(name));
  validate->callback([validate, val, registry, &invocation] {
    if (val->kernels) return validate_kernels(*validate, invocation, *val);
    hw_option("--hw", val->hw);  // an unknown name fails first, with the shipped names
    check_output_path("--json", val->json);
    check_output_path("--dump-config", val->dump_config);
    ReferenceData ref = load_reference(resolve_config_path(val->reference), *registry);
    ResolvedConfigs configs;
    configs.hardware.push_back(resolved_hardware(val->hw, val->sets));
    configs.files.push_back({"reference", val->reference, resolve_config_path(val->reference)});
    // Every file read so far (the reference, the hardware and its base: chain, the reference's hardware) is an
    // input no output may replace.
    check_output_paths({{"--json", val->json}, {"--dump-config", val->dump_config}},
                       {{"--reference", resolve_config_path(val->reference)}, {"--hw", hw_option("--hw", val->hw)}});
    if (!val->dump_config.empty()) write_text_file(val->dump_config, config_dump_text(configs), "config dump");
    PredictionSetup setup;
    setup.hw = val->hw;
    setup.sets = val->sets;
    setup.down = val->down;
    setup.options = reference_run_options(val->options);
    load_hardware_config(val->hw, val->sets);  // bad hardware fails before any simulation
    std::vector<ReferenceRun> runs = ref.runs();
    std::vector<RunFigures> figures = simulate_runs(ref, runs, setup, *registry);
    std::vector<Prediction> predictions = predict(ref, runs, figures);
    std::vector<FactCheck> checks = check_facts(ref, runs, figures, predictions);
    if (!val->quiet) {
      std::cout << ref.model << " on " << val->hw << " (down schedule " << val->down << ") against " << val->reference
                << "\n\n";
      print_predictions(std::cout, predictions);
      print_fact_checks(std::cout, ref, checks);
    }
    if (!val->json.empty()) {
      nlohmann::json doc = predictions_json(ref, val->hw, val->down, predictions, checks);
      doc["provenance"] = provenance(*validate, invocation, configs_json(configs));
      write_json_file(val->json, doc);
    }
    // The model is held to the measurements: a miss is a failed check (exit 1) unless only a report was asked.
    int misses = 0, failed = 0;
    for (const Prediction& p : predictions) misses += p.pass ? 0 : 1;
    for (const FactCheck& c : checks) failed += c.holds ? 0 : 1;
    if ((misses || failed) && !val->report_only)
      throw CheckFailed(std::to_string(misses) + " of " + std::to_string(predictions.size()) +
                        " targets out of tolerance, " + std::to_string(failed) + " of " + std::to_string(checks.size()) +
                        " checked facts do not hold (--report-only reports without failing)");
  });
}

}  // namespace stasim::cli
