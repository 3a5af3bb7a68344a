#include "sim/core/memory_budget.hpp"

#include <cstdio>

#include "sim/core/input_error.hpp"

namespace stasim {

std::string memory_problem(double bytes, const std::string& what) {
  if (bytes <= kMemoryBudgetBytes) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1ull << 30));
  return what + " needs about " + text + " of memory; the limit is " +
         std::to_string(static_cast<long long>(kMemoryBudgetBytes / (1ull << 30))) +
         " GiB (README \"Robustness\")";
}

void require_memory(double bytes, const std::string& what) {
  std::string problem = memory_problem(bytes, what);
  if (!problem.empty()) throw InputError(problem);
}

}  // namespace stasim
