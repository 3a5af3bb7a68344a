// The public header for what every front-end of the simulator shares: its errors and the files it reads and
// writes. Bad input is stasim::InputError (exit code 2 in the CLI), a run that cannot complete
// stasim::SimulationError (exit code 1); both are thrown, never exits.
//
//   stasim::write_output_file(path, text, "the table");  // checked writes: a full disk is an InputError
//   stasim::check_output_paths({{"--json", json}}, {{"--model", model_path}});  // no output replaces an input
//   std::string text = stasim::read_input_file(path, "the plan file");     // regular files only, size-capped
//
// What it exposes, each documented in its own header:
//   errors        InputError, SimulationError, DeadlockError               (sim/core/input_error.hpp)
//   input files   read_input_file, record_input_files, forget_input_file   (sim/core/input_file.hpp)
//   output files  write_output_file, replace_output_file, OutputAppender, stdout_data,
//                 check_output_paths, check_output_writable, require_replaceable, watch_stdout, stdout_error
//                                                                          (sim/core/output_file.hpp)
//   numbers       CNumericScope, text_to_double, format_double: '.' whatever the locale (sim/core/number_text.hpp)
//   text          unprintable (sim/core/printable_text.hpp), nearest_match: the did-you-mean
//                 (sim/core/edit_distance.hpp)
//   the build     stasim_version, stasim_git_describe (sim/core/build_info.hpp); available_cpus, the CPUs this
//                 process may run on (sim/core/available_cpus.hpp)
#pragma once

#include "sim/core/available_cpus.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/number_text.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/printable_text.hpp"
