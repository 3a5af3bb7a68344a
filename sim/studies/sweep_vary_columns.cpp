#include "sim/studies/sweep_vary_columns.hpp"

#include <algorithm>
#include <cmath>

namespace stasim {

std::vector<std::pair<std::string, std::string>> vary_assignments(const nlohmann::json& vary_cell) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!vary_cell.is_string()) return out;
  const std::string text = vary_cell.get<std::string>();
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos && eq > 0) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

nlohmann::json vary_value(const std::string& text) {
  nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
  if (!number.is_discarded() && number.is_number() && number.dump() == text) return number;
  return text;
}

void add_vary_columns(nlohmann::json& row) {
  if (!row.contains("vary")) return;
  for (const auto& [key, value] : vary_assignments(row["vary"])) row[key] = vary_value(value);
}

std::vector<std::string> vary_columns(const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> keys;
  for (const nlohmann::json& row : rows) {
    if (!row.contains("vary")) continue;
    for (const auto& assignment : vary_assignments(row["vary"]))
      if (std::find(keys.begin(), keys.end(), assignment.first) == keys.end()) keys.push_back(assignment.first);
  }
  return keys;
}

bool is_vary_column_name(const std::string& name) {
  return !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
                              std::string::npos;
}

}  // namespace stasim
