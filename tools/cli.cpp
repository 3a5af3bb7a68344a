#include "tools/cli.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"

namespace stasim::cli {

int run(int argc, char** argv) {
  // Redirected output is written in 1 MiB blocks, so a failure (a full disk) mostly surfaces at the final flush,
  // where its reason is still known (stdout_error below).
  if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, nullptr, _IOFBF, std::size_t{1} << 20);
  watch_stdout();
  CLI::App app{"stasim: cycle-approximate simulator of scratchpad-based tensor accelerators"};
  app.require_subcommand(1);
  register_decode_commands(app);
  register_schedule_commands(app);
  register_route_block_commands(app);
  register_golden_commands(app);
  register_sweep_commands(app);
  register_calibration_commands(app);
  register_weights_commands(app);
  register_represent_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the file system refuses (a symlink loop, a permission) is the user's input, reported as such.
    std::cerr << "error: " << (e.path1().empty() ? "" : e.path1().string() + ": ") << e.code().message() << '\n';
    return 2;
  } catch (const CheckFailed& e) {
    std::cerr << "check failed: " << e.what() << '\n';
    return 1;
  } catch (const SimulationError& e) {
    std::cerr << "simulation error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    // Every size a user can give is estimated before it is allocated; reaching this is a missing estimate.
    std::cerr << "internal error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return 1;
  }
  // What was printed must have arrived: a full disk under `> file` is not a success.
  std::string lost = stdout_error();
  if (!lost.empty()) {
    std::cerr << "error: " << lost << '\n';
    return 2;
  }
  return 0;
}

}  // namespace stasim::cli
