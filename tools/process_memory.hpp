// How the `stasim` binary uses memory: large blocks on transparent huge pages (its operator new, in
// process_memory.cpp) and freed memory kept for reuse. For the executable only, never the library.
#pragma once

namespace stasim::cli {

// Sets malloc to serve blocks up to 32 MiB from its heap and to keep what is freed; called first in main().
void keep_freed_memory();

}  // namespace stasim::cli
