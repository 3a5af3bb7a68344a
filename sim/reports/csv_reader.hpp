// Reads back what csv_writer.hpp writes: one record split into fields, quotes removed and doubled quotes undone.
// A quoted field may hold line breaks, so a record can span lines: parse_csv_record says when the text given
// ends inside a quoted field, and the caller appends the next line (with its LF) and asks again.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stasim {

// The fields of one record (text without its final LF), or nothing when text ends inside a quoted field.
std::optional<std::vector<std::string>> parse_csv_record(const std::string& text);

}  // namespace stasim
