// One column per `--vary` key in a sweep's output, beside the `vary` cell ("core.dma.engines=8;option.reuse=0")
// they are derived from, so pandas can group by an axis without parsing text. The `vary` cell stays the source:
// a file read back gets its vary columns from it (and a column that disagrees with it is a corrupt file).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace stasim {

// (key, value) pairs of a `vary` cell, in its order; empty for a null or empty cell.
std::vector<std::pair<std::string, std::string>> vary_assignments(const nlohmann::json& vary_cell);

// A value as its column holds it: a number when the text is exactly a JSON number's text ("650", "0"),
// otherwise the text.
nlohmann::json vary_value(const std::string& text);

// Sets row[key] = vary_value(value) for each assignment of the row's `vary` cell.
void add_vary_columns(nlohmann::json& row);

// The vary keys of `rows` in order of first appearance (a grid's rows all list the same keys, in --vary order).
std::vector<std::string> vary_columns(const std::vector<nlohmann::json>& rows);

// A name a vary column may have: a config key path (letters, digits, '_', '-', '.'), so a stray header cell
// ("tpot (us)") still marks a file that is not a sweep output.
bool is_vary_column_name(const std::string& name);

}  // namespace stasim
