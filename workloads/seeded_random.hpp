// Seeded random numbers whose values are the same on every machine: std::mt19937_64 is fully specified by the
// standard, while std::uniform_*_distribution are not, so the distributions are written out here.
#pragma once

#include <cstdint>
#include <random>

namespace stasim {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next() { return engine_(); }
  // Uniform integer in [0, n) by rejection, so no value is favoured (n > 0).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t draw;
    do draw = engine_();
    while (draw >= limit);
    return draw % n;
  }
  // Uniform double in [0, 1) from the top 53 bits.
  double unit() { return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace stasim
