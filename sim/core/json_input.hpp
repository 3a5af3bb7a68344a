// Parsing a JSON input a user gives (routes, a checkpoint's index and header): like nlohmann::json::parse, but a
// key repeated in one object is an InputError naming the file and the key (exit 2), not silently the last value.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {

// Throws nlohmann::json::parse_error on bad syntax (callers turn it into their message), InputError on a repeated key.
inline nlohmann::json parse_json_input(const std::string& text, const std::string& path) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  auto check = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    else if (event == Event::object_end && !keys.empty()) keys.pop_back();
    else if (event == Event::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second)
        throw InputError(path + ": key '" + shown_word(key) + "' appears twice in one object (JSON keys must be unique)");
    }
    return true;
  };
  return nlohmann::json::parse(text, check);
}

}  // namespace stasim
