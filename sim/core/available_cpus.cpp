#include "sim/core/available_cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace stasim {

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  // No mask to read (an unusual kernel): the machine's count.
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace stasim
