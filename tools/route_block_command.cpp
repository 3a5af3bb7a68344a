// Placeholder registration for the route-alignment commands (align, partition, replay); filled in by the
// route-alignment work (issue 6).
#include "tools/cli.hpp"

namespace stasim::cli {

void register_route_block_commands(CLI::App& app) { (void)app; }

}  // namespace stasim::cli
