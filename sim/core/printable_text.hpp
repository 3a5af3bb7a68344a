// Text that reaches an output — a name, an op, a key, a value kept as text — must be UTF-8 without control
// characters: the JSON writer refuses invalid UTF-8, and a control character breaks a CSV cell, a terminal line
// or a message. Inputs are checked where they enter (parse_yaml_text, --set, the kernel builder, the sweep's
// grid) and refused as bad input; text that cannot be refused (a path the user named) is escaped instead.
#pragma once

#include <string>

namespace stasim {

// What keeps `text` from being printable UTF-8: "" when it is, else e.g. "a control character (0x01) at byte 3",
// "a control character (U+0085) at byte 3" (C1) or "invalid UTF-8 at byte 3" (RFC 3629: no overlong form, no
// surrogate, nothing beyond U+10FFFF). With `allow_line_breaks`, tab and line feed pass (a folded YAML value).
std::string unprintable(const std::string& text, bool allow_line_breaks = false);

// `text` for a message or an output: control characters and bytes that are not valid UTF-8 as \xNN, everything
// else (printable ASCII and valid UTF-8) as it is. Its result always passes unprintable().
std::string escape_unprintable(const std::string& text);

}  // namespace stasim
