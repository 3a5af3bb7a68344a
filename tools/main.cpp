#include <cstdlib>

#include "tools/cli.hpp"
#include "tools/process_memory.hpp"

int main(int argc, char** argv) {
  stasim::cli::keep_freed_memory();
  // SystemC prints its copyright banner when the first simulation context is created unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return stasim::cli::run(argc, argv);
}

