// Time is kept as integer picoseconds (the simulator's resolution); every conversion from cycles or
// nanoseconds goes through these functions so rounding happens in one place.
#pragma once

#include <cmath>
#include <cstdint>

namespace stasim {

using Picoseconds = std::int64_t;

// std::llround (nearest, halves away from zero) without the library call for 0 <= x < 2^52, where the fraction
// x - trunc(x) is exact; anything else (negative, larger, NaN) goes to std::llround. The same value either way:
// the kernel's cost table rounds a duration per op this way.
inline Picoseconds round_ps(double x) {
  if (x >= 0.0 && x < 4503599627370496.0) {
    Picoseconds whole = static_cast<Picoseconds>(x);
    return x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
  }
  return static_cast<Picoseconds>(std::llround(x));
}

inline Picoseconds ps_from_ns(double ns) { return round_ps(ns * 1000.0); }

// cycles / clock_ghz nanoseconds, rounded to the nearest picosecond.
inline Picoseconds ps_from_cycles(double cycles, double clock_ghz) { return round_ps(cycles * 1000.0 / clock_ghz); }

inline double ns_from_ps(Picoseconds ps) { return static_cast<double>(ps) / 1000.0; }

}  // namespace stasim
