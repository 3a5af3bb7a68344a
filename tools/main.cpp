#include <cstdlib>

#include "tools/cli.hpp"

int main(int argc, char** argv) {
  // SystemC prints its copyright banner when the first simulation context is created unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return stasim::cli::run(argc, argv);
}

