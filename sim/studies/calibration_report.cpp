#include "sim/studies/calibration_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace stasim {

void print_predictions(std::ostream& out, const std::vector<Prediction>& predictions) {
  out << fmt::format("{:<48} {:>10} {:>10} {:>9} {:>10} {}\n", "target", "published", "predicted", "error",
                     "tolerance", "result");
  int passed = 0;
  for (const Prediction& p : predictions) {
    const bool abs = p.target->absolute_tolerance();
    out << fmt::format("{:<48} {:>10.4g} {:>10.4g} {:>7.2f}{} {:>8.1f}{} {}\n", p.target->id, p.target->value,
                       p.predicted, p.error * 100, abs ? "pt" : "% ", p.target->tolerance() * 100, abs ? "pt" : "% ",
                       p.pass ? "pass" : "MISS");
    passed += p.pass ? 1 : 0;
  }
  out << passed << " of " << predictions.size() << " targets within tolerance\n";
}

// Facts with checks: each check's expectation, what the model gives and whether it holds. Facts without one are
// listed as text only.
void print_fact_checks(std::ostream& out, const ReferenceData& ref, const std::vector<FactCheck>& checks) {
  if (ref.facts.empty()) return;
  out << "\nfacts\n";
  for (const ReferenceFact& fact : ref.facts) {
    auto c = std::find_if(checks.begin(), checks.end(), [&](const FactCheck& x) { return x.fact == &fact; });
    if (c == checks.end()) {
      out << fact.id << ": " << fact.text << " (not checked)\n";
      continue;
    }
    for (std::size_t k = 0; k < fact.checks.size(); ++k) {
      const FactCheckSpec& spec = fact.checks[k];
      std::string what = fact.id;
      if (fact.checks.size() > 1) what += "[" + std::to_string(k) + "]";
      std::string subject = spec.needs_run() ? spec.run.describe() : spec.targets.empty() ? ref.model : "";
      for (const std::string& t : spec.targets) subject += (subject.empty() ? "" : ", ") + t;
      out << fmt::format("{:<34} expected {:<18} model {:<22} {}\n", what, spec.expected(), c->shown[k],
                         c->check_holds[k] ? "holds" : "DOES NOT HOLD");
      out << "    " << subject << "\n";
    }
  }
}

void print_fit_parameters(std::ostream& out, const std::vector<CalibrationParameter>& params, const FitResult& fit) {
  int width = 34;  // wider for a long --free key
  for (const CalibrationParameter& p : params) width = std::max(width, static_cast<int>(p.name.size()));
  out << fmt::format("\n{:<{}} {:>10} {:>10} {:>10} {:<15} {}\n", "parameter", width, "value", "low", "high", "bound",
                     "sensitivity (tolerances per 10% of span: target)");
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string flag = bound_flag(params[i], fit.values[i]);
    out << fmt::format("{:<{}} {:>10.4g} {:>10.4g} {:>10.4g} {:<15} {:.2f}: {}\n", params[i].name, width, fit.values[i],
                       params[i].low, params[i].high, flag.empty() ? "inside" : flag, fit.sensitivity[i].tolerances,
                       fit.sensitivity[i].target);
  }
}

void print_leave_one_out(std::ostream& out, const std::vector<LeftOut>& rows) {
  out << fmt::format("\nleave-one-out: each target predicted by a fit without it\n{:<48} {:>10} {:>10} {:>10} {:>8} {}\n",
                     "target", "published", "in fit", "left out", "moved", "left-out result");
  int evidence = 0;
  for (const LeftOut& r : rows) {
    if (!r.converged)
      out << fmt::format("{:<48} {:>10.4g} {:>10.4g} {:>10} {:>8} {}\n", r.id, r.published, r.in_fit, "-", "-",
                         "fit did not converge");
    else
      out << fmt::format("{:<48} {:>10.4g} {:>10.4g} {:>10.4g} {:>7.2f}t {}\n", r.id, r.published, r.in_fit, r.left_out,
                         r.moved, r.pass ? "pass (evidence)" : "MISS (warning)");
    evidence += r.converged && r.pass ? 1 : 0;
  }
  out << evidence << " of " << rows.size() << " targets predicted within tolerance when left out (moved: in tolerances)\n";
}

nlohmann::json fit_json(const ReferenceData& ref, const std::vector<CalibrationParameter>& params, const FitResult& fit) {
  nlohmann::json doc;
  doc["reference"] = ref.file;
  doc["evaluations"] = fit.evaluations;
  doc["objective"] = std::round(fit.objective * 1e6) / 1e6;
  nlohmann::json ps = nlohmann::json::array();
  for (std::size_t i = 0; i < params.size(); ++i)
    ps.push_back({{"name", params[i].name}, {"value", fit.values[i]}, {"low", params[i].low}, {"high", params[i].high},
                  {"bound", bound_flag(params[i], fit.values[i])},
                  {"sensitivity", {{"target", fit.sensitivity[i].target},
                                   {"tolerances", std::round(fit.sensitivity[i].tolerances * 1e4) / 1e4}}}});
  doc["parameters"] = ps;
  nlohmann::json ts = nlohmann::json::array();
  for (const Prediction& p : fit.predictions)
    ts.push_back({{"id", p.target->id}, {"published", p.target->value}, {"predicted", std::round(p.predicted * 1e6) / 1e6},
                  {"pass", p.pass}});
  doc["targets"] = ts;
  return doc;
}

nlohmann::json leave_one_out_json(const std::vector<LeftOut>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const LeftOut& r : rows)
    list.push_back({{"id", r.id}, {"published", r.published}, {"in_fit", std::round(r.in_fit * 1e6) / 1e6},
                    {"left_out", std::round(r.left_out * 1e6) / 1e6}, {"moved_tolerances", std::round(r.moved * 1e4) / 1e4},
                    {"pass", r.pass}, {"converged", r.converged}});
  return list;
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
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t k = 0; k < f.checks.size(); ++k)
        list.push_back({{"expected", f.checks[k].expected()}, {"model", c.shown[k]}, {"holds", bool(c.check_holds[k])}});
      entry["checks"] = list;
      entry["holds"] = c.holds;
    }
    facts.push_back(entry);
  }
  doc["facts"] = facts;
  return doc;
}

}  // namespace stasim
