#include "tools/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "stasim/io.hpp"
#include "tools/parse_error_text.hpp"

namespace stasim::cli {

std::string version_text() {
  std::string text = std::string("stasim ") + stasim_version() + " (git " + stasim_git_describe() + ")\n";
  try {
    text += "configs: " + (std::filesystem::path(data_dir()) / "configs").string() + "\n";
  } catch (const InputError& e) {
    text += std::string("configs: none (") + e.what() + ")\n";
  }
  return text;
}

void check_output_path(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(option + " " + path + ": is a folder; name a file");
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec))
    throw InputError(option + " " + path + ": no folder '" + folder.string() + "' to write it in");
}

namespace {

std::string resolved_for(const std::string& option, const std::string& name,
                         std::string (*resolve)(const std::string&)) {
  try {
    return resolve(name);
  } catch (const InputError& e) {
    throw InputError(option + ": " + e.what());
  }
}

}  // namespace

std::string model_option(const std::string& option, const std::string& name) {
  return resolved_for(option, name, resolve_model);
}
std::string hw_option(const std::string& option, const std::string& name) { return resolved_for(option, name, resolve_hw); }

int run(int argc, char** argv) {
  // Numbers read and printed with '.' whatever the process locale (CLI11 reads doubles with strtold; reports use
  // printf): sim/core/number_text.hpp.
  CNumericScope c_numbers;
  // Redirected output is written in 1 MiB blocks, so a failure (a full disk) mostly surfaces at the final flush,
  // where its reason is still known (stdout_error below).
  if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, nullptr, _IOFBF, std::size_t{1} << 20);
  watch_stdout();
  record_input_files();  // the output policy: no output replaces a file this command read
  CLI::App app{"stasim: cycle-approximate simulator of scratchpad-based tensor accelerators", "stasim"};
  app.require_subcommand(1);
  // Every option keeps its default as text, so a result's provenance lists the value of each option.
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", [] {
    std::string text = version_text();
    return text.substr(0, text.size() - 1);  // CLI11 adds the last newline
  }, "print the version, git describe and the configs folder, then exit");
  Invocation invocation;
  invocation.argv.assign(argv, argv + argc);
  register_decode_commands(app, invocation);
  register_schedule_commands(app, invocation);
  register_kernel_command(app, invocation);
  register_route_block_commands(app);
  register_golden_commands(app);
  register_sweep_commands(app, invocation);
  register_calibration_commands(app, invocation);
  register_weights_commands(app);
  register_represent_command(app, invocation);
  register_list_command(app);
  SharedFlags flags;
  add_shared_flags(app, flags);
  try {
    std::vector<std::string> args = canonical_arguments({argv + std::min(argc, 1), argv + argc}, std::cerr);
    check_command_word(app, args);
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, std::cout, *flags.errors);  // --help, --version
    *flags.errors << "error: " << parse_error_text(app, e) << '\n';
    return 2;
  } catch (const InputError& e) {
    *flags.errors << "error: " << e.what() << '\n';
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the file system refuses (a symlink loop, a permission) is the user's input, reported as such.
    *flags.errors << "error: " << (e.path1().empty() ? "" : e.path1().string() + ": ") << e.code().message() << '\n';
    return 2;
  } catch (const CheckFailed& e) {
    *flags.errors << "check failed: " << e.what() << '\n';
    return 1;
  } catch (const SimulationError& e) {
    *flags.errors << "simulation error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    // Every size a user can give is estimated before it is allocated; reaching this is a missing estimate.
    *flags.errors << "internal error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    *flags.errors << "internal error: " << e.what() << '\n';
    return 1;
  }
  finish_command(flags);
  // What was printed must have arrived: a full disk under `> file` is not a success.
  std::string lost = stdout_error();
  if (!lost.empty()) {
    *flags.errors << "error: " << lost << '\n';
    return 2;
  }
  return 0;
}

}  // namespace stasim::cli
