// `stasim bench --represent`: builds the hybrid LR+VQ representation of one synthetic layer with a shipped
// model's shapes (Qwen3-30B-A3B: 128 experts, H 2048, I 768, gate and up) and prints the wall time of each
// phase and the NMSE table. A benchmark that prints figures, never a pass/fail test.
#pragma once

#include <cstdint>
#include <string>

namespace stasim {

struct RepresentBenchOptions {
  std::string model = "qwen3-30b-a3b";
  std::int64_t d = 8;
  std::int64_t r = 384;
  std::int64_t K = 256;
  std::int64_t training_blocks = 1 << 20;  // k-means trains on a seeded sample of this many blocks (0 = all)
  int iterations = 25;
  int calibration_tokens = 2048;
  int evaluation_tokens = 64;
  int threads = 0;
  bool compare = false;  // also build VQ-only and LR-only at the matched rate (a few more minutes)
  std::uint64_t seed = 1;
};

void run_represent_bench(const RepresentBenchOptions& options);

}  // namespace stasim
