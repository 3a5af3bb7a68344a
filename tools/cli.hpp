// The stasim command line. run() parses the arguments, runs the chosen subcommand and turns errors into exit
// codes: 0 ok, 1 simulation error, 2 bad input. Each family of subcommands lives in its own *_command.cpp and
// registers itself here; a subcommand reports bad input by throwing InputError, never by exiting.
#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>

#include "sim/studies/config_paths.hpp"

namespace stasim::cli {

int run(int argc, char** argv);

// A check that ran and found a difference (goldens moved): exit code 1, the message on stderr.
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void register_schedule_commands(CLI::App& app);     // schedule, bench (schedule_command.cpp, bench_command.cpp)
void register_route_block_commands(CLI::App& app);  // align, partition, replay (route_block_command.cpp)
void register_decode_commands(CLI::App& app);       // run, compare (run_command.cpp)
void register_golden_commands(CLI::App& app);       // goldens (goldens_command.cpp)
void register_sweep_commands(CLI::App& app);        // sweep, merge (sweep_command.cpp)
void register_calibration_commands(CLI::App& app);  // calibrate, validate (calibrate_command.cpp)
void register_weights_commands(CLI::App& app);      // export-weights (weights_command.cpp)
void register_represent_command(CLI::App& app);     // represent (represent_command.cpp)

}  // namespace stasim::cli
