// A synthetic schedule for benchmarking the simulator itself: a seeded random DAG over all engine kinds and
// `cores` physical cores, with local dependencies (each op depends on one or two of the previous 64), DMA
// transfers spread over 16 queues, and every matmul accumulating into a PSUM bank that a vector copy drains.
#pragma once

#include <cstdint>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

ScheduleGraph random_dag(std::size_t ops, std::uint32_t cores, std::uint64_t seed);

// The 64-bit Mersenne Twister MT19937-64 (Matsumoto and Nishimura): the same numbers as std::mt19937_64 seeded
// alike (a test compares them), in a form the compiler inlines and vectorizes. The random DAG draws several per
// op, and the library's generator was a fifth of building the graph.
class Mt19937_64 {
 public:
  explicit Mt19937_64(std::uint64_t seed) {
    state_[0] = seed;
    for (unsigned i = 1; i < kWords; ++i)
      state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
    next_ = kWords;
  }
  std::uint64_t operator()() {
    if (next_ >= kWords) refill();
    std::uint64_t y = state_[next_++];
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
    y ^= (y << 37) & 0xFFF7EEE000000000ULL;
    return y ^ (y >> 43);
  }

 private:
  static constexpr unsigned kWords = 312;
  static constexpr unsigned kShift = 156;
  // The upper 33 bits of one word and the lower 31 of the next, shifted right once, the twist matrix added when
  // the lowest bit is set (without a branch).
  static std::uint64_t twist(std::uint64_t upper, std::uint64_t lower) {
    std::uint64_t x = (upper & 0xFFFFFFFF80000000ULL) | (lower & 0x7FFFFFFFULL);
    return (x >> 1) ^ ((0 - (x & 1)) & 0xB5026F5AA96619E9ULL);
  }
  void refill() {
    std::uint64_t* s = state_;
    for (unsigned i = 0; i < kWords - kShift; ++i) s[i] = s[i + kShift] ^ twist(s[i], s[i + 1]);
    for (unsigned i = kWords - kShift; i < kWords - 1; ++i) s[i] = s[i - (kWords - kShift)] ^ twist(s[i], s[i + 1]);
    s[kWords - 1] = s[kShift - 1] ^ twist(s[kWords - 1], s[0]);
    next_ = 0;
  }
  std::uint64_t state_[kWords];
  unsigned next_;
};

}  // namespace stasim
