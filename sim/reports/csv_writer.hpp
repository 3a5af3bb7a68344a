// The one CSV dialect stasim writes (sweep tables, the op table): RFC 4180 fields, a field that holds a comma, a
// double quote, CR or LF enclosed in double quotes with each quote doubled, every other field bare. Records end in
// LF, not RFC 4180's CRLF (the files are read on Unix and by Python's csv module, which takes both). csv_reader.hpp
// reads this dialect back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stasim {

// text as one CSV field: bare when it holds none of , " CR LF, else quoted.
std::string csv_field(std::string_view text);

// The fields quoted as needed and joined by commas, with the LF that ends the record.
std::string csv_record(const std::vector<std::string>& fields);

}  // namespace stasim
