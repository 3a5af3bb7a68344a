// libFuzzer entry point of one harness; STASIM_FUZZ_HARNESS names the function (tests/fuzz/CMakeLists.txt).
// The custom mutator mixes libFuzzer's byte-level mutations with the structure-aware ones of yaml_mutators.hpp
// (alias expansion, emptied sections, bad bytes in names), which byte flips alone almost never produce.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "tests/fuzz/fuzz_harness.hpp"
#include "tests/fuzz/yaml_mutators.hpp"

#define STASIM_STRING(x) #x
#define STASIM_NAME(x) STASIM_STRING(x)

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stasim::fuzz::STASIM_FUZZ_HARNESS(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::mt19937 random(seed);
  // 1/8 alias expansion, 1/8 emptied section, 1/8 bad bytes in a name, key or value, the rest byte-level.
  const unsigned choice = random() % 8;
  if (choice >= 3) return LLVMFuzzerMutate(data, size, max_size);
  const std::string harness = STASIM_NAME(STASIM_FUZZ_HARNESS);
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string prefix;
  if (harness == "routes") {  // the first byte picks the format; only YAML has anchors
    if (text.empty() || ((text[0] == 'j' || text[0] == 'c') && choice != 2)) return LLVMFuzzerMutate(data, size, max_size);
    prefix = text.substr(0, 1);
    text = text.substr(1);
  }
  std::string mutated;
  if (choice == 2) mutated = stasim::fuzz::mutate_bad_bytes(text, random());
  else if (harness == "set_override") mutated = stasim::fuzz::mutate_set_line(text, random());
  else if (choice == 0) mutated = stasim::fuzz::mutate_aliases(text, random());
  else mutated = stasim::fuzz::mutate_null_section(text, random());
  mutated = prefix + mutated;
  if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}
