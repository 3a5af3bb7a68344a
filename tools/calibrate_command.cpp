// `stasim calibrate` (fit the unknown hardware parameters to the published figures, write the overlay) and
// `stasim validate` (predict every published figure with a hardware config and compare, within tolerances).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/core/output_file.hpp"
#include "sim/core/input_error.hpp"
#include "sim/reports/result_report.hpp"
#include "sim/studies/calibration_fit.hpp"
#include "tools/cli.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim::cli {
namespace {

const char* kDefaultReference = "configs/reference/published.yaml";

struct CalibrateOptions {
  std::string reference = kDefaultReference;
  std::string output = "configs/hw/trn3-calibrated.yaml";
  FitOptions fit;
  bool quiet = false;
};

struct ValidateOptions {
  std::string reference = kDefaultReference;
  std::string hw = "trn3-calibrated";
  std::string down = "weight-sbuf";
  std::vector<std::string> sets;
  std::string json;
  bool quiet = false;
};

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

void print_table(std::ostream& out, const std::vector<Prediction>& predictions) {
  char line[256];
  std::snprintf(line, sizeof line, "%-48s %10s %10s %9s %10s %s\n", "target", "published", "predicted", "error",
                "tolerance", "result");
  out << line;
  int passed = 0;
  for (const Prediction& p : predictions) {
    const bool abs = p.target->absolute_tolerance();
    std::snprintf(line, sizeof line, "%-48s %10.4g %10.4g %7.2f%s %8.1f%s %s\n", p.target->id.c_str(), p.target->value,
                  p.predicted, p.error * 100, abs ? "pt" : "% ", p.target->tolerance() * 100, abs ? "pt" : "% ",
                  p.pass ? "pass" : "MISS");
    out << line;
    passed += p.pass ? 1 : 0;
  }
  out << passed << " of " << predictions.size() << " targets within tolerance\n";
}

// Facts with a check: published, simulated, holds. Facts without one are listed as text only.
void print_facts(std::ostream& out, const ReferenceData& ref, const std::vector<FactCheck>& checks) {
  if (ref.facts.empty()) return;
  out << "\nfacts (reported, not fitted)\n";
  char line[256];
  for (const ReferenceFact& fact : ref.facts) {
    auto c = std::find_if(checks.begin(), checks.end(), [&](const FactCheck& x) { return x.fact == &fact; });
    if (c == checks.end()) {
      out << fact.id << ": " << fact.text << " (not checked)\n";
      continue;
    }
    const std::string published = fact.at_least >= 0 ? ">= " + percent(fact.at_least) : percent(fact.value) + " +-1.5pt";
    std::snprintf(line, sizeof line, "%-30s published %-14s simulated %7s  %s\n", fact.id.c_str(), published.c_str(),
                  percent(c->simulated).c_str(), c->holds ? "holds" : "DOES NOT HOLD");
    out << line;
  }
}

nlohmann::json predictions_json(const ReferenceData& ref, const std::string& hw, const std::string& down,
                                const std::vector<Prediction>& predictions, const std::vector<FactCheck>& checks) {
  nlohmann::json doc;
  doc["reference"] = ref.file;
  doc["hardware"] = hw;
  doc["down_schedule"] = down;
  nlohmann::json list = nlohmann::json::array();
  int passed = 0;
  for (const Prediction& p : predictions) {
    list.push_back({{"id", p.target->id},
                    {"published", p.target->value},
                    {"predicted", std::round(p.predicted * 1e6) / 1e6},
                    {"error", std::round(p.error * 1e6) / 1e6},
                    {"error_unit", p.target->absolute_tolerance() ? "absolute" : "relative"},
                    {"tolerance", p.target->tolerance()},
                    {"pass", p.pass}});
    passed += p.pass ? 1 : 0;
  }
  doc["targets"] = list;
  doc["passed"] = passed;
  doc["total"] = predictions.size();
  nlohmann::json facts = nlohmann::json::array();
  for (const ReferenceFact& f : ref.facts) {
    nlohmann::json entry = {{"id", f.id}, {"text", f.text}, {"checked", f.checked()}};
    for (const FactCheck& c : checks) {
      if (c.fact != &f) continue;
      if (f.at_least >= 0) entry["at_least"] = f.at_least;
      else entry["published"] = f.value;
      entry["simulated"] = std::round(c.simulated * 1e6) / 1e6;
      entry["holds"] = c.holds;
    }
    facts.push_back(entry);
  }
  doc["facts"] = facts;
  return doc;
}

}  // namespace

void register_calibration_commands(CLI::App& app) {
  auto registry = std::make_shared<DataflowRegistry>();
  register_builtin(*registry);

  auto cal = std::make_shared<CalibrateOptions>();
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Fit the hardware parameters nothing public gives to the published figures; write an overlay");
  calibrate->add_option("--reference", cal->reference, "reference figures (YAML)")->capture_default_str();
  calibrate->add_option("--hw", cal->fit.base_hw, "base hardware (name or path) the overlay changes")->capture_default_str();
  calibrate->add_option("--output", cal->output, "overlay to write (next to the base config)")->capture_default_str();
  calibrate->add_option("--max-evaluations", cal->fit.max_evaluations, "search budget; a fit still improving at the end "
                        "has not converged and writes nothing")->capture_default_str();
  calibrate->add_flag("--quiet", cal->quiet, "print no progress");
  calibrate->callback([cal, registry] {
    namespace fs = std::filesystem;
    if (cal->fit.max_evaluations < 1) throw InputError("--max-evaluations must be at least 1");
    ReferenceData ref = load_reference(resolve_config_path(cal->reference), *registry);
    std::string output = cal->output;
    if (fs::path(output).is_relative() && !fs::exists(fs::path(output).parent_path().empty() ? "." : fs::path(output).parent_path()))
      output = (fs::path(STASIM_SOURCE_DIR) / output).string();
    const std::string base_path = resolve_hw(cal->fit.base_hw);
    if (fs::absolute(fs::path(output).parent_path()).lexically_normal() !=
        fs::absolute(fs::path(base_path).parent_path()).lexically_normal())
      throw InputError("--output " + cal->output + ": the overlay must be in the folder of its base (" +
                       fs::path(base_path).parent_path().string() + ")");
    FitResult fit = fit_calibration(ref, cal->fit, *registry, cal->quiet ? nullptr : &std::cerr);
    if (!fit.converged) throw SimulationError("calibration did not converge: " + fit.message + "; nothing written");
    const std::string text = calibrated_overlay(ref, cal->fit, fit, fs::path(base_path).filename().string());
    replace_output_file(output, text, "the calibrated overlay");
    std::cout << "wrote " << output << " (" << fit.evaluations << " evaluations)\n";
    print_table(std::cout, fit.predictions);
  });

  auto val = std::make_shared<ValidateOptions>();
  CLI::App* validate = app.add_subcommand("validate", "Predict every published figure and compare within tolerances");
  validate->add_option("--reference", val->reference, "reference figures (YAML)")->capture_default_str();
  validate->add_option("--hw", val->hw, "hardware name (configs/hw/NAME.yaml) or YAML path")->capture_default_str();
  validate->add_option("--down-schedule", val->down, "down schedule of every run (auto simulates all four)")
      ->capture_default_str();
  validate->add_option("--set", val->sets, "override a hardware key (key.path=value)");
  validate->add_option("--json", val->json, "write the table as JSON to FILE ('-' for stdout)");
  validate->add_flag("--quiet", val->quiet, "print no table");
  validate->callback([val, registry] {
    ReferenceData ref = load_reference(resolve_config_path(val->reference), *registry);
    PredictionSetup setup;
    setup.hw = val->hw;
    setup.sets = val->sets;
    setup.down = val->down;
    load_hardware(resolve_hw(val->hw), val->sets);  // bad hardware fails before any simulation
    std::vector<ReferenceRun> runs = ref.runs();
    std::vector<RunFigures> figures = simulate_runs(ref, runs, setup, *registry);
    std::vector<Prediction> predictions = predict(ref, runs, figures);
    std::vector<FactCheck> checks = check_facts(ref, runs, figures);
    if (!val->quiet) {
      std::cout << ref.model << " on " << val->hw << " (down schedule " << val->down << ") against " << val->reference
                << "\n\n";
      print_table(std::cout, predictions);
      print_facts(std::cout, ref, checks);
    }
    if (!val->json.empty()) write_json_file(val->json, predictions_json(ref, val->hw, val->down, predictions, checks));
  });
}

}  // namespace stasim::cli
