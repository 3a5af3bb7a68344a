// libFuzzer entry point of one harness; STASIM_FUZZ_HARNESS names the function (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stasim::fuzz::STASIM_FUZZ_HARNESS(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
