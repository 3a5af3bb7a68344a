#include <cstdlib>

#include "tools/cli.hpp"

int main(int argc, char** argv) {
  // SystemC prints its copyright banner when the first simulation context is created unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return stasim::cli::run(argc, argv);
}

// libsystemc carries its own main() that calls sc_main(); stasim has its own main, but the library still
// needs the symbol. It is never called.
extern "C" int sc_main(int, char**) { return 1; }
