#include "sim/studies/calibration_fit.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/worker_pool.hpp"
#include "sim/core/number_text.hpp"

namespace stasim {

// Sources are the keys of docs/hardware-model.md (ARCH-v2..v4, ISA, PERF, ...). Only what nothing documents is
// fitted: the documented costs keep their documented values in trn3.yaml and are not parameters here — the DMA
// issue cost (trigger to first byte, 0.75-1.0 us in the NeuronCore-v3 profiles, DMA-BW's ~1.3 us on v2), the
// completion hop (0.29-0.30 us), the TensorE minimum issue (MIN_II / MM_INIT_LATENCY 64 cycles, ARCH-v2, PERF) and
// an instruction's latency after its interval (PERF's 189 ns dependent interval; the v3 profiles' 0.41 us
// 128-element exp). A fit that wants one of them elsewhere is a structure the model lacks, not a value to move.
const std::vector<CalibrationParameter>& calibration_parameters() {
  static const std::vector<CalibrationParameter> params = {
      {"dma.descriptor_ns", {"core.dma.descriptor_ns"}, 1.0, 3.9, true, false, false,
       "docs/hardware-model.md: the core's descriptor processing (shared by its 16 DMA engines) is undocumented; "
       "DMA-BW: <256 B per partition is severely overhead-bound, >=2 KiB near peak, i.e. a descriptor costs what "
       "0.5 to 2 KiB take at the core's 528 B/ns (1.0 to 3.9 ns); trn1's fit to the tiled matmul tutorial is 1.36 KB"},
      {"gpsimd.start_cycles", {"core.engines.gpsimd.start_cycles"}, 100, 300, false, true, false,
       "docs/hardware-model.md: GPSIMD_START ~150 cycles on v2 (ISA); v4 undocumented: two thirds to twice the v2 figure"},
      {"gpsimd.gather_index_cycles", {"core.engines.gpsimd.gather_index_cycles"}, 0.25, 8, true, false, false,
       "docs/hardware-model.md: nc_n_gather's per-index cost is undocumented; local_gather's is 28/t = 7 cycles per index "
       "(ISA), the upper end; a lane cannot take much less than a quarter cycle per index next to its one cycle "
       "per 32-bit word (docs/hardware-model.md: 512 bit/cycle per GpSimd core)"},
      {"link.latency_ns", {"core.link.latency_ns"}, 100, 2000, true, true, false,
       "docs/hardware-model.md: LNC=2 cross-core (sendrecv, SBUF-to-SBUF) latency unpublished; between an on-chip semaphore hop "
       "and the ~1.3 us fixed cost of a DMA transfer (the path is a DMA)"},
      {"semaphore_ns", {"core.semaphore_ns"}, 20, 200, false, true, false,
       "docs/hardware-model.md: semaphore hop assumed 50-100 ns; no public figure"},
      {"collective.alpha_ns", {"collective.alpha_ns"}, 1000, 4000, false, true, false,
       "docs/hardware-model.md: Neuron's collectives take 1-2 us per hop and a small TP=4 all-reduce inside one "
       "device takes 1-2 hops (the intra-node algorithms): 1 to 4 us"},
      {"runtime.step_us", {"runtime.step_us"}, 25, 600, true, true, false,
       "docs/hardware-model.md: the host's part of a synchronous decode step (one nrt_execute per token) is not "
       "published; from a submission and two small tensor copies over PCIe (tens of us) to a Python framework's "
       "step between two executions (several hundred us)"},
  };
  return params;
}

namespace {

double to_value(const CalibrationParameter& p, double u) {
  double v = p.log_scale ? p.low * std::pow(p.high / p.low, u) : p.low + (p.high - p.low) * u;
  return v;
}

double to_unit(const CalibrationParameter& p, double v) {
  v = std::min(std::max(v, p.low), p.high);
  return p.log_scale ? std::log(v / p.low) / std::log(p.high / p.low) : (v - p.low) / (p.high - p.low);
}

// The written values: integers for counts and cycles, four significant digits otherwise, so the file reads
// cleanly and the report describes exactly what is written.
double rounded(const CalibrationParameter& p, double v) {
  if (p.integer) return std::round(v);
  return text_to_double(format_double("%.4g", v));
}

std::string number(double v) { return format_double("%.10g", v); }

double base_value(const YamlNode& root, const std::string& key, const std::string& file) {
  YamlNode node = root;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) {
    if (!node.is_map() || !node[part]) throw InputError(file + ": no key '" + key + "' to calibrate");
    node = node[part];
  }
  // The document passed load_hardware, so the value is a number; anything else is still reported, not thrown.
  const std::string text = node.scalar();
  std::size_t used = 0;
  double value = 0;
  try {
    value = text_to_double(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size()) throw InputError(mark_of(node, file) + ": " + key + ": expected a number");
  return value;
}

// Where the search starts: the base's value (a freed key the base leaves out, or one outside the --free bounds,
// starts inside them: the middle of the span, or the nearer bound).
double start_value(const YamlNode& root, const CalibrationParameter& p, bool declared, const std::string& file) {
  if (declared) return base_value(root, p.keys.front(), file);
  YamlNode node = root;
  std::stringstream ss(p.keys.front());
  for (std::string part; std::getline(ss, part, '.');) {
    if (!node.is_map() || !node[part]) return p.log_scale ? std::sqrt(p.low * p.high) : (p.low + p.high) / 2;
    node = node[part];
  }
  return std::min(std::max(base_value(root, p.keys.front(), file), p.low), p.high);
}

double bound_number(const std::string& text, const std::string& free, const char* which) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = text_to_double(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size() || !std::isfinite(v))
    throw InputError("--free " + free + ": the " + which + " bound '" + text + "' is not a number (key.path=LOW:HIGH)");
  return v;
}

}  // namespace

std::vector<CalibrationParameter> fit_parameters(const FitOptions& options) {
  std::vector<CalibrationParameter> params = calibration_parameters();
  const std::string base_path = options.frees.empty() ? std::string() : resolve_hw(options.base_hw);
  for (const std::string& free : options.frees) {
    const std::size_t eq = free.find('='), colon = free.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
      throw InputError("--free " + free + ": expected key.path=LOW:HIGH (e.g. core.engines.gpsimd.swdge_descriptor_cycles=1:64)");
    CalibrationParameter p;
    p.name = free.substr(0, eq);
    p.keys = {p.name};
    p.low = bound_number(free.substr(eq + 1, colon - eq - 1), free, "lower");
    p.high = bound_number(free.substr(colon + 1), free, "upper");
    if (!(p.low < p.high)) throw InputError("--free " + free + ": the lower bound must be below the upper bound");
    for (std::size_t k = 0; k < params.size(); ++k)
      if (std::find(params[k].keys.begin(), params[k].keys.end(), p.name) != params[k].keys.end())
        throw InputError("--free " + free + ": " + p.name + " is " +
                         (k >= calibration_parameters().size()
                              ? std::string("freed twice")
                              : "a declared parameter (" + params[k].name + ", between " + number(params[k].low) + " and " +
                                    number(params[k].high) + "); its bounds are argued in sim/studies/calibration_fit.cpp"));
    for (const std::string& set : options.sets)
      if (set.substr(0, set.find('=')) == p.name)
        throw InputError("--free " + free + ": " + p.name + " is also fixed by --set " + set + "; fix it or fit it, not both");
    // Both bounds must be values the base takes (a bad key, a non-number key or a bound out of the key's range:
    // the hardware config's own error, exit 2).
    for (double bound : {p.low, p.high}) {
      std::vector<std::string> sets = options.sets;
      sets.push_back(p.name + "=" + number(bound));
      try {
        load_hardware(base_path, sets, shipped_hw_path);
      } catch (const InputError& e) {
        // load_hardware names the override it was given ("--set key=value: ..."); the user wrote a --free.
        std::string why = e.what();
        if (why.rfind("--set ", 0) == 0 && why.find(": ") != std::string::npos) why = why.substr(why.find(": ") + 2);
        throw InputError("--free " + free + ": " + why);
      }
    }
    // A count (a key that refuses a fraction between integral bounds) is searched over integers.
    if (std::floor(p.low) == p.low && std::floor(p.high) == p.high && p.high - p.low >= 1) {
      std::vector<std::string> sets = options.sets;
      sets.push_back(p.name + "=" + number(p.low + 0.5));
      try {
        load_hardware(base_path, sets, shipped_hw_path);
      } catch (const InputError&) {
        p.integer = p.integers_only = true;
      }
    }
    p.log_scale = p.low > 0 && p.high / p.low > 4;
    p.reason = "stasim calibrate --free " + free;
    params.push_back(std::move(p));
  }
  return params;
}

std::vector<std::string> parameter_sets(const std::vector<CalibrationParameter>& params, const std::vector<double>& values) {
  std::vector<std::string> sets;
  for (std::size_t i = 0; i < params.size(); ++i)
    for (const std::string& key : params[i].keys) sets.push_back(key + "=" + number(values[i]));
  return sets;
}

// A robust (Cauchy) loss: a target within its tolerance costs at most log 2, and a target the model cannot
// reach grows only logarithmically, so one structural miss cannot drag every parameter to a bound.
double objective_of(const std::vector<Prediction>& predictions, const std::vector<std::string>& excluded) {
  double sum = 0;
  for (const Prediction& p : predictions) {
    if (std::find(excluded.begin(), excluded.end(), p.target->id) != excluded.end()) continue;
    double normalized = p.error / p.target->tolerance();
    sum += std::log1p(normalized * normalized);
  }
  return sum;
}

std::vector<std::string> evaluation_sets(const FitOptions& options, const std::vector<CalibrationParameter>& params,
                                         const std::vector<double>& values) {
  std::vector<std::string> sets = options.sets;
  for (std::string& s : parameter_sets(params, values)) sets.push_back(std::move(s));
  return sets;
}

void check_fixed_sets(const FitOptions& options) {
  for (const std::string& set : options.sets) {
    const std::string key = set.substr(0, set.find('='));
    for (const CalibrationParameter& p : calibration_parameters())
      if (std::find(p.keys.begin(), p.keys.end(), key) != p.keys.end())
        throw InputError("--set " + set + ": " + key + " is a fitted parameter (" + p.name + ", between " + number(p.low) +
                         " and " + number(p.high) + "); --set fixes only what the fit leaves alone");
  }
  load_hardware(resolve_hw(options.base_hw), options.sets, shipped_hw_path);  // a bad key or value: exit 2
}

FitResult fit_calibration(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                          std::ostream* progress) {
  check_fixed_sets(options);  // the base (and its fixed overrides) must be valid before any search
  const std::vector<CalibrationParameter> params = fit_parameters(options);
  const std::string base_path = resolve_hw(options.base_hw);
  YamlNode base_root = load_hardware_document(base_path, shipped_hw_path);
  FitResult fit;
  fit.runs = ref.runs();
  std::vector<double> u(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    double v = start_value(base_root, params[i], i < calibration_parameters().size(), base_path);
    fit.start.push_back(v);
    u[i] = to_unit(params[i], v);
  }
  auto values_of = [&](const std::vector<double>& point, bool round) {
    std::vector<double> v(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      v[i] = to_value(params[i], point[i]);
      if (round || params[i].integers_only) v[i] = rounded(params[i], v[i]);
    }
    return v;
  };
  auto setup_for = [&](const std::vector<double>& values) {
    PredictionSetup setup;
    setup.hw = base_path;
    setup.sets = evaluation_sets(options, params, values);
    setup.down = options.down;
    setup.options = options.options;
    return setup;
  };
  // Evaluates points in the worker pool: `options.workers` processes kept for the whole fit, each simulating a
  // point's runs one after another on its own kernel and sending back 'o' and the objective, or 'e' and why not.
  WorkerPool pool(
      [&](const std::string& input) {
        std::vector<double> point(input.size() / sizeof(double));
        std::memcpy(point.data(), input.data(), point.size() * sizeof(double));
        try {
          PredictionSetup setup = setup_for(values_of(point, false));
          setup.workers = 1;
          std::vector<RunFigures> figures = simulate_runs(ref, fit.runs, setup, registry);
          double obj = objective_of(predict(ref, fit.runs, figures), options.excluded);
          return std::string("o") + std::string(reinterpret_cast<const char*>(&obj), sizeof obj);
        } catch (const InputError& e) {  // a reference run the options make invalid: bad input, exit 2
          return std::string("i") + e.what();
        } catch (const std::exception& e) {
          return std::string("e") + e.what();
        }
      },
      options.workers);
  auto evaluate_points = [&](const std::vector<std::vector<double>>& points) {
    std::vector<std::string> inputs;
    for (const std::vector<double>& p : points)
      inputs.emplace_back(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(double));
    std::vector<TaskOutcome> outcomes = pool.run(inputs);
    std::vector<double> objectives(points.size(), 0.0);
    std::string problem, bad_input;
    for (std::size_t k = 0; k < points.size(); ++k) {
      const TaskOutcome& o = outcomes[k];
      if (o.ok && o.output.size() == 1 + sizeof(double) && o.output[0] == 'o') {
        std::memcpy(&objectives[k], o.output.data() + 1, sizeof(double));
      } else if (o.ok && !o.output.empty() && o.output[0] == 'i') {
        if (bad_input.empty()) bad_input = o.output.substr(1);
      } else if (problem.empty()) {
        problem = !o.ok ? "the calibration worker " + o.failure : o.output.substr(1);
      }
    }
    fit.evaluations += static_cast<int>(points.size());
    if (!bad_input.empty()) throw InputError(bad_input);
    if (!problem.empty()) throw SimulationError("calibration: " + problem);
    return objectives;
  };

  double best = evaluate_points({u}).front();
  if (progress) *progress << "start: objective " << best << "\n";
  // Fixed step schedule in normalized coordinates; at each step size, sweep the parameters in declaration
  // order, evaluating +step and -step together and keeping the better one when it strictly improves (ties go
  // to +step), until a sweep improves nothing.
  const std::vector<double> steps = {0.25, 0.1, 0.04};
  bool budget_left = true;
  for (std::size_t level = 0; level < steps.size() && budget_left; ++level) {
    const double step = steps[level];
    bool improved = true;
    while (improved && budget_left) {
      improved = false;
      for (std::size_t i = 0; i < params.size() && budget_left; ++i) {
        std::vector<std::vector<double>> trials;
        for (double direction : {+1.0, -1.0}) {
          std::vector<double> trial = u;
          trial[i] = std::min(1.0, std::max(0.0, u[i] + direction * step));
          if (trial[i] != u[i]) trials.push_back(trial);
        }
        if (trials.empty()) continue;
        if (fit.evaluations + static_cast<int>(trials.size()) > options.max_evaluations) {
          budget_left = false;
          break;
        }
        std::vector<double> objectives = evaluate_points(trials);
        std::size_t pick = 0;
        for (std::size_t k = 1; k < objectives.size(); ++k)
          if (objectives[k] < objectives[pick]) pick = k;
        if (!(objectives[pick] < best * (1 - 1e-9))) continue;
        const double direction = trials[pick][i] > u[i] ? 1.0 : -1.0;
        best = objectives[pick];
        u = trials[pick];
        improved = true;
        // Line search: keep going the way that helped, trying one and two more steps together.
        while (budget_left) {
          std::vector<std::vector<double>> further;
          for (double k : {1.0, 2.0}) {
            std::vector<double> trial = u;
            trial[i] = std::min(1.0, std::max(0.0, u[i] + direction * k * step));
            if (trial[i] != u[i] && (further.empty() || further.back()[i] != trial[i])) further.push_back(trial);
          }
          if (further.empty()) break;
          if (fit.evaluations + static_cast<int>(further.size()) > options.max_evaluations) {
            budget_left = false;
            break;
          }
          std::vector<double> more = evaluate_points(further);
          std::size_t take = 0;
          for (std::size_t k = 1; k < more.size(); ++k)
            if (more[k] < more[take]) take = k;
          if (!(more[take] < best * (1 - 1e-9))) break;
          best = more[take];
          u = further[take];
        }
        if (progress)
          *progress << "eval " << fit.evaluations << ": step " << step << " " << params[i].name << " -> "
                    << to_value(params[i], u[i]) << ", objective " << best << "\n";
      }
    }
  }
  fit.converged = budget_left;
  if (!fit.converged) {
    fit.message = "the search used its " + std::to_string(options.max_evaluations) +
                  " evaluations while a sweep at the step schedule was still improving (objective " + number(best) + ")";
    return fit;
  }
  fit.values = values_of(u, true);
  PredictionSetup setup = setup_for(fit.values);
  setup.workers = options.workers;
  fit.figures = simulate_runs(ref, fit.runs, setup, registry);
  fit.predictions = predict(ref, fit.runs, fit.figures);
  fit.objective = objective_of(fit.predictions, options.excluded);
  return fit;
}

std::string bound_flag(const CalibrationParameter& p, double value) {
  const double span = p.log_scale ? std::log(p.high / p.low) : p.high - p.low;
  const double from_low = p.log_scale ? std::log(value / p.low) : value - p.low;
  const double from_high = p.log_scale ? std::log(p.high / value) : p.high - value;
  return from_low <= 0.01 * span ? "AT LOWER BOUND" : from_high <= 0.01 * span ? "AT UPPER BOUND" : "";
}

void measure_sensitivity(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                         FitResult& fit) {
  const std::vector<CalibrationParameter> params = fit_parameters(options);
  const std::string base_path = resolve_hw(options.base_hw);
  fit.sensitivity.assign(params.size(), {});
  for (std::size_t i = 0; i < params.size(); ++i) {
    for (double direction : {+1.0, -1.0}) {
      std::vector<double> values = fit.values;
      values[i] = to_value(params[i], std::min(1.0, std::max(0.0, to_unit(params[i], fit.values[i]) + 0.1 * direction)));
      if (values[i] == fit.values[i]) continue;
      PredictionSetup setup;
      setup.hw = base_path;
      setup.sets = evaluation_sets(options, params, values);
      setup.down = options.down;
      setup.options = options.options;
      setup.workers = options.workers;
      std::vector<Prediction> moved = predict(ref, fit.runs, simulate_runs(ref, fit.runs, setup, registry));
      for (std::size_t t = 0; t < moved.size(); ++t) {
        const double shift = std::fabs(moved[t].error - fit.predictions[t].error) / moved[t].target->tolerance();
        if (shift > fit.sensitivity[i].tolerances) fit.sensitivity[i] = {moved[t].target->id, shift};
      }
    }
  }
}

std::vector<LeftOut> leave_one_out(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                                   const FitResult& full, std::ostream* progress) {
  std::vector<LeftOut> out;
  for (const Prediction& p : full.predictions) {
    FitOptions without = options;
    without.excluded.push_back(p.target->id);
    FitResult fit = fit_calibration(ref, without, registry, nullptr);
    LeftOut row;
    row.id = p.target->id;
    row.published = p.target->value;
    row.in_fit = p.predicted;
    row.converged = fit.converged;
    if (fit.converged) {
      for (const Prediction& q : fit.predictions)
        if (q.target->id == row.id) {
          row.left_out = q.predicted;
          row.pass = q.pass;
          row.moved = (q.error - p.error) / q.target->tolerance();
        }
    }
    if (progress)
      *progress << "left out " << row.id << ": " << (fit.converged ? "predicted " + number(row.left_out) : "did not converge")
                << " (" << fit.evaluations << " evaluations)\n";
    out.push_back(row);
  }
  return out;
}

std::string calibrated_overlay(const ReferenceData& ref, const FitOptions& options, const FitResult& fit,
                               const std::string& base) {
  const std::vector<CalibrationParameter> params = fit_parameters(options);
  std::ostringstream out;
  char line[512];
  out << "# Written by `stasim calibrate`; do not edit by hand (rerun it). An overlay of " << base
      << ": only the\n# parameters nothing public gives (assumed in docs/hardware-model.md) change, each fitted within the bounds\n"
      << "# declared in sim/studies/calibration_fit.cpp.\n#\n";
  out << "# Fit report: " << params.size() << " parameters, " << fit.predictions.size() << " targets of "
      << ref.file.substr(ref.file.rfind("configs/") == std::string::npos ? 0 : ref.file.rfind("configs/")) << "; "
      << fit.evaluations << " evaluations, down schedule " << options.down << ", objective "
      << number(std::round(fit.objective * 1000) / 1000) << " (sum of log(1 + (error/tolerance)^2))\n#\n";
  if (!options.sets.empty()) {
    out << "# Fitted with fixed overrides of the base (stasim calibrate --set), written below with the parameters:\n";
    for (const std::string& set : options.sets) out << "#   " << set << "\n";
    out << "#\n";
  }
  if (!options.options.empty()) {
    out << "# Fitted with run options on every reference run (stasim calibrate --option); not in this file, so\n"
        << "# validate it with the same: stasim validate --hw <this file>";
    for (const std::string& o : options.options) out << " --option " << o;
    out << "\n#\n";
  }
  if (!options.frees.empty()) {
    out << "# Fitted with extra parameters (stasim calibrate --free), in the table below after the declared ones:\n";
    for (const std::string& free : options.frees) out << "#   " << free << "\n";
    out << "#\n";
  }
  std::snprintf(line, sizeof line, "# %-48s %10s %10s %9s %9s %s\n", "target", "published", "predicted", "error",
                "tolerance", "result");
  out << line;
  for (const Prediction& p : fit.predictions) {
    const bool abs = p.target->absolute_tolerance();
    std::snprintf(line, sizeof line, "# %-48s %10.4g %10.4g %8.2f%s %8.1f%s %s\n", p.target->id.c_str(), p.target->value,
                  p.predicted, abs ? p.error * 100 : p.error * 100, abs ? "pt" : "%", p.target->tolerance() * 100,
                  abs ? "pt" : "%", p.pass ? "pass" : "MISS");
    out << line;
  }
  out << "#\n";
  // Sensitivity: the target that moves most (in tolerances) when the parameter moves by 10 % of its span.
  int width = 34;  // wider for a long --free key
  for (const CalibrationParameter& p : params) width = std::max(width, static_cast<int>(p.name.size()));
  std::snprintf(line, sizeof line, "# %-*s %10s %10s %10s %10s %-16s %s\n", width, "parameter", "value", "start", "low", "high",
                "", "sensitivity (tolerances per 10% of span: target)");
  out << line;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    std::string sens;
    if (i < fit.sensitivity.size()) {
      char text[160];
      std::snprintf(text, sizeof text, "%.2f: %s", fit.sensitivity[i].tolerances, fit.sensitivity[i].target.c_str());
      sens = text;
    }
    std::snprintf(line, sizeof line, "# %-*s %10.4g %10.4g %10.4g %10.4g %-16s %s\n", width, p.name.c_str(), fit.values[i],
                  fit.start[i], p.low, p.high, bound_flag(p, fit.values[i]).c_str(), sens.c_str());
    out << line;
  }
  out << "\nbase: " << base << "\n";
  // Nested keys, written in declaration order under their sections.
  YAML::Node doc(YAML::NodeType::Map);
  // Its own name, so run output says which config produced it.
  doc["name"] = std::filesystem::path(base).stem().string() + "-calibrated";
  const std::vector<std::string> sets = evaluation_sets(options, params, fit.values);
  for (const std::string& set : sets) {
    const std::string key = set.substr(0, set.find('='));
    const std::string value = set.substr(set.find('=') + 1);
    std::vector<std::string> parts;
    std::stringstream ss(key);
    for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
    YAML::Node node = doc;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      if (!node[parts[k]]) node[parts[k]] = YAML::Node(YAML::NodeType::Map);
      node.reset(node[parts[k]]);
    }
    node[parts.back()] = YAML::Load(value);
  }
  out << YAML::Dump(doc) << "\n";
  return out.str();
}

}  // namespace stasim
