// Structure-aware mutations of YAML text for the fuzz harnesses, aimed at two classes of bad input that byte
// flips rarely reach: alias expansion (anchors and aliases, nested so they multiply, or inside their own anchor)
// and present-but-empty sections (`dma:` with nothing under it). fuzz_main.cpp applies them as libFuzzer's custom
// mutator, besides its own byte-level mutations; they are plain functions of (text, seed), so tests replay them.
#pragma once

#include <cstdint>
#include <string>

namespace stasim::fuzz {

// Adds anchors and aliases: a chain of top-level lists each repeating the previous one (an alias bomb), an
// existing value reused by an alias elsewhere, or an alias inside its own anchor. Returns the new text.
std::string mutate_aliases(const std::string& text, std::uint32_t seed);

// Empties one mapping entry: removes the value of a `key:` line and every more-indented line under it, or turns
// a list entry into `- `. Returns the new text (unchanged when it has no such line).
std::string mutate_null_section(const std::string& text, std::uint32_t seed);

// The same two for `--set` input (one key.path=value per line): a value becomes empty or an alias bomb.
std::string mutate_set_line(const std::string& text, std::uint32_t seed);

}  // namespace stasim::fuzz
