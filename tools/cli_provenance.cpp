// The provenance block every result of the CLI carries. Options are read back from CLI11 after parsing, so a new
// option is recorded without code here: its value when given (a list for repeatable options, true/false for
// flags), its default text otherwise (cli.cpp makes every option capture its default). Arguments are the user's
// bytes (a path may hold any but '/' and NUL) and JSON holds UTF-8 only: each is recorded with escape_unprintable.
#include <filesystem>

#include "stasim/io.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

std::string option_key(const CLI::Option& option) {
  std::string name = option.get_name();
  std::size_t start = name.find_first_not_of('-');
  return start == std::string::npos ? name : name.substr(start);
}

nlohmann::json option_value(const CLI::Option& option) {
  if (option.get_expected_max() == 0) return option.count() > 0;  // a flag takes no value
  const bool repeatable = option.get_expected_max() > 1;
  if (option.count() == 0) {
    if (repeatable) return nlohmann::json::array();
    return escape_unprintable(option.get_default_str());
  }
  std::vector<std::string> given = option.results();
  for (std::string& value : given) value = escape_unprintable(value);
  if (repeatable) return given;
  return given.back();
}

}  // namespace

nlohmann::json provenance(const CLI::App& sub, const Invocation& invocation, const nlohmann::json& configs) {
  nlohmann::json doc;
  doc["stasim"] = {{"version", stasim_version()}, {"git", stasim_git_describe()}};
  // The program's own path says where it was installed, not what it computed: only its name is kept.
  std::vector<std::string> command_line = invocation.argv;
  if (!command_line.empty()) command_line[0] = std::filesystem::path(command_line[0]).filename().string();
  for (std::string& argument : command_line) argument = escape_unprintable(argument);
  doc["command_line"] = command_line;
  doc["command"] = sub.get_name();
  nlohmann::json options = nlohmann::json::object();
  for (const CLI::Option* option : sub.get_options()) {
    if (option == sub.get_help_ptr() || option == sub.get_help_all_ptr()) continue;
    options[option_key(*option)] = option_value(*option);
  }
  doc["options"] = options;
  doc["sets"] = options.contains("set") ? options["set"] : nlohmann::json::array();
  doc["configs"] = configs;
  return doc;
}

}  // namespace stasim::cli
