// CLI11's parse errors in stasim's voice: the option and its value, what is wrong with it, and where the options
// are listed, the form every other bad input takes ("--batch 0: must be between 1 and ..."). The caller prints it
// after "error: " and exits with code 2; --help and --version are not errors and keep CLI11's own output.
#pragma once

#include <CLI/CLI.hpp>

#include <regex>
#include <string>

#include "tools/cli.hpp"

namespace stasim::cli {

// What an option of CLI11 type name `type` takes, in words ("INT" -> "an integer").
inline std::string value_kind(const std::string& type) {
  if (type == "INT") return "an integer";
  if (type == "UINT") return "a non-negative integer";
  if (type == "FLOAT") return "a number";
  return "a value";
}

inline std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const CLI::App* sub = chosen.empty() ? &app : chosen.front();
  const std::string where = sub == &app ? "stasim" : "stasim " + sub->get_name();
  const std::string help = " (" + where + " --help lists the options)";
  const auto type_of = [sub](const std::string& name) {
    const CLI::Option* option = sub->get_option_no_throw(name);
    return option ? option->get_type_name() : std::string();
  };
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return unexpected_arguments(app);
  const std::string what = e.what();
  std::smatch m;
  if (std::regex_match(what, m, std::regex(R"((-\S+): \d+ required (\S+) missing)")))
    return m[1].str() + ": needs " + value_kind(m[2].str()) + " after it" + help;
  if (std::regex_match(what, m, std::regex(R"(Could not convert: (-\S+) = (.*))")))
    return m[1].str() + " " + m[2].str() + ": expected " + value_kind(type_of(m[1].str())) + help;
  if (std::regex_match(what, m, std::regex(R"((-\S+): Value (\S+) not in range (\S+) to (\S+))")))
    return m[1].str() + " " + m[2].str() + ": must be between " + m[3].str() + " and " + m[4].str();
  return what + help;
}

}  // namespace stasim::cli
