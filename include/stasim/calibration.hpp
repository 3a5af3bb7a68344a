// The public header for holding the model to measurements, as `stasim calibrate` and `stasim validate` do:
// load the reference figures (configs/reference/published.yaml), simulate its runs on a hardware config and
// predict every target, check the facts; or fit the hardware parameters nothing public gives and write the
// calibrated overlay. Kernel targets (configs/reference/kernels.yaml) are checked by check_kernels.
//
//   stasim::Simulator sim;
//   stasim::ReferenceData ref = stasim::load_reference(stasim::resolve_config_path(
//       "configs/reference/published.yaml"), sim.registry());
//   stasim::PredictionSetup setup;                     // hw trn3-calibrated, its --set values, down schedule
//   std::vector<stasim::ReferenceRun> runs = ref.runs();
//   auto predictions = stasim::predict(ref, runs, stasim::simulate_runs(ref, runs, setup, sim.registry()));
//   stasim::print_predictions(std::cout, predictions);  // the table `stasim validate` prints
//
// Declared in sim/studies/: reference_data.hpp and reference_prediction.hpp (targets, facts, predictions),
// calibration_fit.hpp (parameters, the fit, sensitivity, leave-one-out, the overlay), calibration_report.hpp
// (the tables and --json documents), kernel_validation.hpp (the kernel targets).
#pragma once

#include "sim/studies/calibration_fit.hpp"
#include "sim/studies/calibration_report.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/studies/kernel_validation.hpp"
#include "sim/studies/reference_data.hpp"
#include "sim/studies/reference_prediction.hpp"
#include "stasim/stasim.hpp"
