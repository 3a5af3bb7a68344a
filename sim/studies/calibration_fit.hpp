// CalibrationFit: fits the hardware parameters nothing public gives (docs/hardware-model.md) to the reference
// targets. Each parameter is declared once, with bounds and the reason for them; some are one concept written
// at several keys (the per-instruction static overhead of the vector, scalar and GpSimd engines). The search is
// a deterministic coordinate descent in normalized coordinates from the base config's values, with a fixed
// step schedule; the objective is the sum over targets of log(1 + (error / tolerance)^2).
#pragma once

#include <string>
#include <vector>

#include "sim/studies/reference_prediction.hpp"

namespace stasim {

struct CalibrationParameter {
  std::string name;
  std::vector<std::string> keys;  // hardware key paths that take the value (one concept, tied)
  double low = 0, high = 0;
  bool log_scale = false;         // searched in log space (spans of more than ~4x)
  bool integer = false;
  bool integers_only = false;     // the key refuses fractions (a freed count): rounded during the search too
  std::string reason;
};

// The fitted parameters, bounds and reasons (calibration_fit.cpp).
const std::vector<CalibrationParameter>& calibration_parameters();

struct FitOptions {
  std::string base_hw = "trn3";  // the config the overlay is based on and the search starts from
  std::string down = "weight-sbuf";
  int max_evaluations = 300;  // points simulated (two at a time)
  int workers = 2;
  std::vector<std::string> excluded;  // target ids left out of the objective (leave-one-out)
  // Fixed "key.path=value" overrides of the base (a structural what-if, e.g. core.dma.exchange_engine=gpsimd_dma):
  // applied in every evaluation and written into the overlay, so the overlay alone reproduces the fit. A fitted
  // parameter's key is refused (check_fixed_sets).
  std::vector<std::string> sets;
  // Extra "key.path=LOW:HIGH" parameters fitted with the declared ones (a cost the declared list keeps fixed that
  // a user wants to fit to their own measurements, e.g. core.engines.gpsimd.swdge_descriptor_cycles=1:64): searched
  // between the bounds (in log space when they span more than 4x), reported and written like the others.
  std::vector<std::string> frees;
  // Run options of every reference run (PredictionSetup::options, canonical "NAME=VALUE"): a kernel variant the fit
  // assumes. Not part of the overlay (a hardware file); its header lists them for `stasim validate --option`.
  std::vector<std::string> options;
};

// The parameters of a fit: the declared ones, then options.frees in order (InputError when a --free is malformed,
// names a declared parameter's key, a fixed --set key, a key twice, or a key the base hardware does not take).
std::vector<CalibrationParameter> fit_parameters(const FitOptions& options);

// InputError when a --set names a fitted parameter or does not apply to the base hardware.
void check_fixed_sets(const FitOptions& options);

// How strongly the fit's predictions depend on one parameter: the target that moves most, in units of its
// tolerance, when the parameter moves by +-10 % of its bounds' span (normalized coordinates).
struct Sensitivity {
  std::string target;
  double tolerances = 0;
};

struct FitResult {
  bool converged = false;
  int evaluations = 0;
  double objective = 0;
  std::vector<double> values;              // per fit_parameters(options)
  std::vector<double> start;
  std::vector<Prediction> predictions;     // at the rounded values that are written
  std::vector<RunFigures> figures;
  std::vector<ReferenceRun> runs;
  std::vector<Sensitivity> sensitivity;    // per parameter (when asked for)
  std::string message;                     // why it did not converge
};

// Where a fitted value sits: "AT LOWER BOUND" / "AT UPPER BOUND" within 1 % of the span, else "".
std::string bound_flag(const CalibrationParameter& p, double value);

FitResult fit_calibration(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                          std::ostream* progress);

// Fills fit.sensitivity (two evaluations per parameter around the fitted values).
void measure_sensitivity(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                         FitResult& fit);

// Leave-one-out: the fit repeated without each target in turn, and that target predicted by it.
struct LeftOut {
  std::string id;
  double published = 0;
  double in_fit = 0;       // prediction of the fit with every target
  double left_out = 0;     // prediction of the fit without this target
  double moved = 0;        // (left_out - in_fit) in units of the target's tolerance
  bool pass = false;       // the left-out prediction is within tolerance
  bool converged = false;
};
std::vector<LeftOut> leave_one_out(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                                   const FitResult& full, std::ostream* progress);

// The overlay file: `base: <base>` (a shipped name such as "trn3", or a path relative to the overlay's folder),
// `name: <base's stem>-calibrated`, the fitted keys, and a comment block with the fit report.
std::string calibrated_overlay(const ReferenceData& ref, const FitOptions& options, const FitResult& fit,
                               const std::string& base);

// "key.path=value" overrides for the given parameter values (one per key of each of `params`).
std::vector<std::string> parameter_sets(const std::vector<CalibrationParameter>& params, const std::vector<double>& values);
// The overrides of one evaluation: the fixed sets, then the parameters'.
std::vector<std::string> evaluation_sets(const FitOptions& options, const std::vector<CalibrationParameter>& params,
                                         const std::vector<double>& values);

// Sum over the targets not `excluded` of log(1 + (error / tolerance)^2).
double objective_of(const std::vector<Prediction>& predictions, const std::vector<std::string>& excluded = {});

}  // namespace stasim
