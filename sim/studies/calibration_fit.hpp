// CalibrationFit: fits the hardware parameters nothing public gives (docs/hardware-facts.md §6) to the reference
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
  std::string reason;
};

// The fitted parameters, bounds and reasons (calibration_fit.cpp).
const std::vector<CalibrationParameter>& calibration_parameters();

struct FitOptions {
  std::string base_hw = "trn3";  // the config the overlay is based on and the search starts from
  std::string down = "weight-sbuf";
  int max_evaluations = 160;  // points simulated (two at a time)
  int workers = 2;
};

struct FitResult {
  bool converged = false;
  int evaluations = 0;
  double objective = 0;
  std::vector<double> values;              // per calibration_parameters()
  std::vector<double> start;
  std::vector<Prediction> predictions;     // at the rounded values that are written
  std::vector<RunFigures> figures;
  std::vector<ReferenceRun> runs;
  std::string message;                     // why it did not converge
};

FitResult fit_calibration(const ReferenceData& ref, const FitOptions& options, const DataflowRegistry& registry,
                          std::ostream* progress);

// The overlay file: `base: <base file name>`, the fitted keys, and a comment block with the fit report.
std::string calibrated_overlay(const ReferenceData& ref, const FitOptions& options, const FitResult& fit,
                               const std::string& base_file_name);

// "key.path=value" overrides for the given parameter values.
std::vector<std::string> parameter_sets(const std::vector<double>& values);

double objective_of(const std::vector<Prediction>& predictions);

}  // namespace stasim
