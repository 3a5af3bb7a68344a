#include "sim/core/input_error.hpp"
#include "tests/fuzz/fuzz_harness.hpp"
#include "workloads/routing.hpp"

namespace stasim::fuzz {

void routes(const std::string& input) {
  if (input.empty()) return;
  const char* format = input[0] == 'j' ? "json" : input[0] == 'c' ? "csv" : "yaml";
  // E = 128 as in Qwen3-30B-A3B: ids up to 127 are valid, so inputs can get past the range check.
  const std::int64_t experts = 128;
  try {
    RoutingTrace trace = routing_from_text(input.substr(1), format, experts, std::string("fuzz-routes.") + format);
    (void)trace.routes();
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
