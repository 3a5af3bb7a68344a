// The stasim command line. run() parses the arguments, runs the chosen subcommand and turns errors into exit
// codes: 0 ok, 1 simulation error, 2 bad input. Each family of subcommands lives in its own *_command.cpp and
// registers itself here; a subcommand reports bad input by throwing InputError, never by exiting.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "stasim/stasim.hpp"

namespace stasim::cli {

int run(int argc, char** argv);

// A check that ran and found a difference (goldens moved): exit code 1, the message on stderr.
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The command line as given, filled before parsing: what the results' provenance records.
struct Invocation {
  std::vector<std::string> argv;
};

// The provenance block of a result written by subcommand `sub` (cli_provenance.cpp): the simulator's version and
// git describe, the command line, every option of `sub` with its value (given or default) and `configs`, the
// SHA-256 of the resolved configs the command read (sim/studies/resolved_configs.hpp).
nlohmann::json provenance(const CLI::App& sub, const Invocation& invocation,
                          const nlohmann::json& configs = nlohmann::json::object());
// An output option's FILE before any work: InputError "OPTION PATH: ..." when its folder does not exist or it
// names a folder. "" (not given) and "-" (stdout) pass.
void check_output_path(const std::string& option, const std::string& path);

// The conventions every subcommand shares (cli_conventions.cpp): -q/--quiet, -v/--verbose, stdout kept pure when
// an output is "-", old option spellings, did-you-mean for unknown commands and options.
struct SharedFlags {
  bool quiet = false, verbose = false;      // bound to the -q/-v flags of commands without their own
  const CLI::App* command = nullptr;        // the command that ran
  std::chrono::steady_clock::time_point started;
  std::ostream* errors = &std::cerr;        // the real stderr, also under -q
};
// Adds -q/--quiet and -v/--verbose to every subcommand that has not got them, and hooks start_command.
void add_shared_flags(CLI::App& app, SharedFlags& flags);
// Once the command's options are parsed: mutes the reports (-q, or an output "-") and prints the -v preamble.
void start_command(const CLI::App& sub, SharedFlags& flags);
// After the command succeeded: the -v epilogue (outputs written, wall time).
void finish_command(const SharedFlags& flags);
// The arguments (without the program name) with old option spellings replaced by the scheme's, noting each
// deprecated one on `notes`.
std::vector<std::string> canonical_arguments(const std::vector<std::string>& args, std::ostream& notes);
// InputError "unknown command 'rn' (did you mean 'run'?); commands: ..." for a first word that is no command,
// or "name a command; ..." when there is none (and no --help or --version).
void check_command_word(const CLI::App& app, const std::vector<std::string>& args);
// After CLI11 found arguments it did not expect: one line per argument, with a did-you-mean for options.
std::string unexpected_arguments(const CLI::App& app);

// resolve_model / resolve_hw for the value of `option`: an unknown name's error (with the did-you-mean and the
// shipped names) starts with the option, "--model: no model 'qwen3' (did you mean 'qwen3-30b-a3b'?); ...".
std::string model_option(const std::string& option, const std::string& name);
std::string hw_option(const std::string& option, const std::string& name);

// "stasim 0.1.0 (git v0.1.0-3-gabc1234)" and where the shipped configs are read from.
std::string version_text();

void register_schedule_commands(CLI::App& app, const Invocation& invocation);  // schedule, bench
void register_kernel_command(CLI::App& app, const Invocation& invocation);     // kernel (kernel_command.cpp)
void register_route_block_commands(CLI::App& app);  // align, partition, replay (route_block_command.cpp)
void register_decode_commands(CLI::App& app, const Invocation& invocation);    // run, compare (run_command.cpp)
void register_golden_commands(CLI::App& app);       // goldens (goldens_command.cpp)
void register_sweep_commands(CLI::App& app, const Invocation& invocation);     // sweep, merge (sweep_command.cpp)
void register_merge_command(CLI::App& app, const Invocation& invocation);      // merge (merge_command.cpp)
void register_calibration_commands(CLI::App& app, const Invocation& invocation);  // calibrate, validate
void register_weights_commands(CLI::App& app);      // export-weights (weights_command.cpp)
void register_represent_command(CLI::App& app, const Invocation& invocation);  // represent
void register_list_command(CLI::App& app);          // list (list_command.cpp)

}  // namespace stasim::cli
