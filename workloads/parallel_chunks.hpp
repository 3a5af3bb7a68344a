// Runs fn(chunk) for chunk = 0 .. chunks-1 on up to `threads` threads. Each chunk must write only its own
// outputs; callers reduce per-chunk results in chunk order afterwards, so results never depend on the thread
// count. The first exception thrown by fn is rethrown after all threads stopped.
#pragma once

#include <cstdint>
#include <functional>

namespace stasim {

// threads ≤ 0 → the CPUs this process may use (its affinity mask: sim/core/available_cpus.hpp).
int resolve_threads(int threads);

void parallel_chunks(std::int64_t chunks, int threads, const std::function<void(std::int64_t)>& fn);

}  // namespace stasim
