#include "sim/core/printable_text.hpp"

#include <cstdint>
#include <cstdio>

namespace stasim {
namespace {

// The length of the valid UTF-8 sequence at text[i] and its code point, or 0 when it is not one.
std::size_t sequence_at(const std::string& text, std::size_t i, std::uint32_t& code) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  code = length == 1 ? c : length == 2 ? (c & 0x1f) : length == 3 ? (c & 0x0f) : (c & 0x07);
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char next = static_cast<unsigned char>(text[i + k]);
    if ((next >> 6) != 0x2) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  static const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

bool control(std::uint32_t code) { return code < 0x20 || code == 0x7f || (code >= 0x80 && code < 0xa0); }

}  // namespace

std::string unprintable(const std::string& text, bool allow_line_breaks) {
  auto at = [](std::size_t i) { return " at byte " + std::to_string(i + 1); };
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code = 0;
    const std::size_t length = sequence_at(text, i, code);
    if (length == 0) return "invalid UTF-8" + at(i);
    if (control(code) && !(allow_line_breaks && (code == '\t' || code == '\n'))) {
      char hex[12];
      if (code < 0x80) std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(code));
      else std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(code));
      return std::string("a control character (") + hex + ")" + at(i);
    }
    i += length;
  }
  return "";
}

std::string escape_unprintable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code = 0;
    std::size_t length = sequence_at(text, i, code);
    if (length != 0 && !control(code)) {
      out.append(text, i, length);
      i += length;
      continue;
    }
    if (length == 0) length = 1;  // an invalid byte: escaped alone, the next one is looked at afresh
    for (std::size_t k = 0; k < length; ++k) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i + k])));
      out += hex;
    }
    i += length;
  }
  return out;
}

}  // namespace stasim
