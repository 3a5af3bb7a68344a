// What `stasim calibrate` and `stasim validate` print and write: the table of published versus predicted
// figures, the checked facts, the fitted parameters with their bounds and sensitivity, the leave-one-out table,
// and the JSON documents of their --json (numbers rounded as the tables show them, so files diff cleanly).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "sim/studies/calibration_fit.hpp"

namespace stasim {

// One line per target (published, predicted, error, tolerance, pass/MISS) and the count within tolerance.
void print_predictions(std::ostream& out, const std::vector<Prediction>& predictions);
// Facts with checks: each check's expectation, what the model gives and whether it holds; facts without one
// are listed as text only.
void print_fact_checks(std::ostream& out, const ReferenceData& ref, const std::vector<FactCheck>& checks);
void print_fit_parameters(std::ostream& out, const std::vector<CalibrationParameter>& params, const FitResult& fit);
void print_leave_one_out(std::ostream& out, const std::vector<LeftOut>& rows);

// calibrate --json: the fit (reference, evaluations, objective, parameters, targets) and its leave-one-out list.
nlohmann::json fit_json(const ReferenceData& ref, const std::vector<CalibrationParameter>& params, const FitResult& fit);
nlohmann::json leave_one_out_json(const std::vector<LeftOut>& rows);
// validate --json: every target's prediction and every fact with its checks.
nlohmann::json predictions_json(const ReferenceData& ref, const std::string& hw, const std::string& down,
                                const std::vector<Prediction>& predictions, const std::vector<FactCheck>& checks);

}  // namespace stasim
