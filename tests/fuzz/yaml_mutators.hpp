// Structure-aware mutations of YAML text for the fuzz harnesses, aimed at two classes of bad input that byte
// flips rarely reach: alias expansion (anchors and aliases, nested so they multiply, or inside their own anchor),
// present-but-empty sections (`dma:` with nothing under it) and bad bytes in names (invalid UTF-8, control
// characters) placed where a loader keeps them as text. fuzz_main.cpp applies them as libFuzzer's custom
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

// Puts bad bytes into one key or value (often a `name:`): a raw invalid UTF-8 sequence (a lone continuation
// byte, an overlong form, a surrogate, a cut sequence, a code point beyond U+10FFFF, 0xff), a raw control
// character (C0, DEL, C1 as UTF-8), or the same as a double-quoted YAML escape ("\x01", "\u0085", "\0").
// Works on YAML and on `--set` lines alike. Returns the new text.
std::string mutate_bad_bytes(const std::string& text, std::uint32_t seed);

// The same two for `--set` input (one key.path=value per line): a value becomes empty or an alias bomb.
std::string mutate_set_line(const std::string& text, std::uint32_t seed);

}  // namespace stasim::fuzz
