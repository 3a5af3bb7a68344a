// Time is kept as integer picoseconds (the simulator's resolution); every conversion from cycles or
// nanoseconds goes through these functions so rounding happens in one place.
#pragma once

#include <cmath>
#include <cstdint>

namespace stasim {

using Picoseconds = std::int64_t;

inline Picoseconds ps_from_ns(double ns) { return static_cast<Picoseconds>(std::llround(ns * 1000.0)); }

// cycles / clock_ghz nanoseconds, rounded to the nearest picosecond.
inline Picoseconds ps_from_cycles(double cycles, double clock_ghz) {
  return static_cast<Picoseconds>(std::llround(cycles * 1000.0 / clock_ghz));
}

inline double ns_from_ps(Picoseconds ps) { return static_cast<double>(ps) / 1000.0; }

}  // namespace stasim
