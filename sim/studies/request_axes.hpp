// The switches of a decode request that a sweep varies like a config key: `--vary option.reuse=0,1` runs every
// point with and without `run --no-reuse`. Each axis is one field of RunRequest, named after run's option
// (reuse = the negation of --no-reuse, tp = --tp, ...). Values are checked before any point runs and written in
// one spelling (switches 0/1, integers in decimal), so a point's key does not depend on how the user wrote them.
#pragma once

#include <string>
#include <vector>

#include "sim/studies/decode_run.hpp"

namespace stasim {

inline constexpr const char* kOptionAxisPrefix = "option.";

bool is_option_axis(const std::string& key);  // "option.<name>"

// The axes, "option.reuse", ..., for messages and help.
std::vector<std::string> option_axes();

// `value` of axis `key` in its one spelling ("true" -> "1"); InputError naming `--vary KEY`, the value and what
// it expects, or the known axes with a did-you-mean for an unknown name.
std::string canonical_option_value(const std::string& key, const std::string& value);

// Sets the request field of axis `key` to a canonical value.
void apply_option(RunRequest& request, const std::string& key, const std::string& value);

// The run option that sets the same field as axis `key` when `request` (a sweep's fixed request) already sets
// it away from RunRequest's default ("--no-reuse", "--tp"), "" otherwise: giving both is ambiguous.
std::string fixed_option_for(const RunRequest& request, const std::string& key);

}  // namespace stasim
