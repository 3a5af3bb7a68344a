#include "tools/cli.hpp"
namespace stasim::cli {
void register_schedule_commands(CLI::App& app) { (void)app; }
}
