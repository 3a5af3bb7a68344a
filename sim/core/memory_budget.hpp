// The memory stasim may allocate on a user's request. Sizes that each pass their own range check can still
// multiply past any machine (a model at its documented bounds, 2^31-1 partition blocks, 2^31 generated tokens, a
// synthetic layer of 131072 x 131072 weights): they are estimated before anything is allocated and refused with
// this limit (exit code 2), instead of ending in bad_alloc or the out-of-memory killer.
#pragma once

#include <cstdint>
#include <string>

namespace stasim {

// 8 GiB: three times the largest working set of the shipped workloads (building one Qwen3-30B-A3B layer's
// representation, 4.3 GiB peak, README "Performance"), and a third of the 24 GiB development machine.
constexpr double kMemoryBudgetBytes = 8.0 * (1ull << 30);

// "" when `bytes` fits the budget, else the problem: "<what> needs about N GiB; the limit is 8 GiB ...".
std::string memory_problem(double bytes, const std::string& what);
// Throws InputError with that problem.
void require_memory(double bytes, const std::string& what);

// The largest schedule graph: 10,000,000 ops take about 4 GiB (the benchmark's 365-400 bytes per op plus
// labels); a builder reaching it stops with an InputError instead of exhausting memory.
constexpr std::uint64_t kMaxGraphOps = 10000000;

}  // namespace stasim
