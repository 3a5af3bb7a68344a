#include "tools/cli.hpp"

#include <filesystem>
#include <iostream>

#include "sim/core/input_error.hpp"

namespace stasim::cli {

int run(int argc, char** argv) {
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
  } catch (const CheckFailed& e) {
    std::cerr << "check failed: " << e.what() << '\n';
    return 1;
  } catch (const SimulationError& e) {
    std::cerr << "simulation error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace stasim::cli
