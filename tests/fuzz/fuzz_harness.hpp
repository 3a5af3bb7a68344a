// Fuzz harnesses: each feeds arbitrary bytes to one input loader the way the CLI would. InputError is the
// expected answer to bad input and is swallowed; any other exception escapes (a finding, like a crash, a
// sanitizer report, a leak or a timeout). The same functions serve libFuzzer (fuzz_main.cpp, build-fuzz/) and
// the regression replay test of the normal build (regression_replay_test.cpp).
#pragma once

#include <stdexcept>
#include <string>

#include "sim/core/printable_text.hpp"

namespace stasim::fuzz {

// A name that passed a loader reaches every output (JSON, CSV, the terminal), so it must be printable UTF-8
// (docs/robustness.md): one that is not is a finding, thrown as something other than InputError.
inline void expect_printable(const std::string& name, const char* what) {
  if (!unprintable(name).empty())
    throw std::logic_error(std::string("a loader accepted ") + what + " '" + escape_unprintable(name) + "' holding " +
                           unprintable(name));
}

// configs/hw/*.yaml text, read like load_hardware reads a file without a `base:`.
void hardware_config(const std::string& input);
// configs/models/*.yaml text, read and validated like load_model, then its parameter arithmetic.
void model_config(const std::string& input);
// configs/schedules/*.yaml text: built into a graph and validated against configs/hw/trn3.yaml.
void schedule(const std::string& input);
// A routes file: the first byte picks the format ('j' JSON, 'c' CSV, anything else YAML), the rest is the text.
void routes(const std::string& input);
// One `--set key.path=value` per line, applied to the shipped trn3 hardware and Qwen3-30B-A3B model documents.
void set_override(const std::string& input);

}  // namespace stasim::fuzz
