// What every subcommand shares, applied once over the whole command tree (README "Conventions"):
// - `-q/--quiet`: nothing but errors (no summary, table, progress or note); the files named by --json, --out,
//   --trace ... are still written, and an output named "-" still goes to stdout.
// - `-v/--verbose`: also, on stderr, the configs folder, the file each config name resolved to, and at the end
//   the outputs written and the wall time.
// - An output named "-" (`--json -`) makes stdout pure data: the human report is not printed.
// - Old spellings of renamed options keep working (a note on stderr says the new one).
// - An unknown command or option is bad input with a did-you-mean and the list of what exists.
#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <filesystem>
#include <sstream>
#include <utility>

#include "stasim/io.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

// Renamed options: (command, old spelling, the scheme's spelling, deprecated). A deprecated spelling prints a
// note; a synonym (compare --dataflow for --dataflows) is taken silently.
struct Alias {
  const char* command;
  const char* old_name;
  const char* new_name;
  bool deprecated;
};
constexpr Alias kAliases[] = {
    {"calibrate", "--output", "--out", true},
    {"compare", "--dataflow", "--dataflows", false},
};

// Options whose values name configs (resolved by name or path), shown by --verbose.
constexpr const char* kConfigOptions[] = {"--model", "--models", "--hw"};
// Options whose values are files the command writes, listed by --verbose at the end.
constexpr const char* kOutputOptions[] = {"--json", "--out", "--trace", "--dot", "--ops", "--dump-config"};

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool given(const CLI::App& sub, const std::string& name) {
  const CLI::Option* option = sub.get_option_no_throw(name);
  return option && option->count() > 0;
}

}  // namespace

std::vector<std::string> canonical_arguments(const std::vector<std::string>& args, std::ostream& notes) {
  std::vector<std::string> out = args;
  // -q holds back the notes too (nothing but errors).
  const bool quiet = std::find(args.begin(), args.end(), "-q") != args.end() ||
                     std::find(args.begin(), args.end(), "--quiet") != args.end();
  // The command is the first word that is not an option (the top level takes only flags).
  std::string command;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == "--") break;
    if (command.empty()) {
      if (!out[i].empty() && out[i][0] != '-') command = out[i];
      continue;
    }
    for (const Alias& alias : kAliases) {
      if (command != alias.command) continue;
      const std::string old_name = alias.old_name;
      const bool exact = out[i] == old_name;
      if (!exact && out[i].rfind(old_name + "=", 0) != 0) continue;
      if (alias.deprecated && !quiet)
        notes << "note: " << command << " " << old_name << " is the old spelling of " << alias.new_name
              << " (still accepted)\n";
      out[i] = alias.new_name + out[i].substr(old_name.size());
    }
  }
  return out;
}

void check_command_word(const CLI::App& app, const std::vector<std::string>& args) {
  const std::vector<std::string> names = command_names(app);
  const std::string list = "commands: " + joined(names) + " (stasim --help says what each does)";
  for (const std::string& word : args) {
    if (word.empty() || word[0] == '-') {
      if (word == "--") break;
      continue;
    }
    if (std::find(names.begin(), names.end(), word) != names.end()) return;
    throw InputError("unknown command '" + word + "'" + did_you_mean(word, names) + "; " + list);
  }
  bool asks_only_help_or_version = false;
  for (const std::string& word : args)
    if (word == "-h" || word == "--help" || word == "--version") asks_only_help_or_version = true;
  if (!asks_only_help_or_version) throw InputError("name a command; " + list);
}

std::string unexpected_arguments(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const CLI::App* sub = chosen.empty() ? &app : chosen.front();
  std::vector<std::string> known;
  for (const CLI::Option* option : sub->get_options())
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
  const std::string where = sub == &app ? "stasim" : "stasim " + sub->get_name();
  std::vector<std::string> problems;
  bool after_unknown_option = false;
  for (const std::string& word : app.remaining(true)) {
    const bool is_option = word.size() > 1 && word[0] == '-';
    // The word after an unknown option is most likely its value: one message for the pair.
    if (!is_option && std::exchange(after_unknown_option, false)) continue;
    after_unknown_option = is_option && word.find('=') == std::string::npos;
    if (is_option) {
      const std::string name = word.substr(0, word.find('='));
      problems.push_back("unknown option '" + name + "' for " + where + did_you_mean(name, known) + " (" + where +
                         " --help lists the options)");
    } else {
      problems.push_back("unexpected argument '" + word + "' for " + where + " (options take the form --name VALUE)");
    }
  }
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "\n") + p;
  return text;
}

void add_shared_flags(CLI::App& app, SharedFlags& flags) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    CLI::Option* quiet = sub->get_option_no_throw("--quiet");
    if (!quiet) quiet = sub->add_flag("-q,--quiet", flags.quiet, "print nothing but errors (files named by options are still written)");
    CLI::Option* verbose = sub->get_option_no_throw("--verbose");
    if (!verbose)
      verbose = sub->add_flag("-v,--verbose", flags.verbose,
                              "also print on stderr the configs each name resolved to, the outputs written and the wall time");
    quiet->excludes(verbose);
    sub->parse_complete_callback([sub, &flags] { start_command(*sub, flags); });
  }
}

void start_command(const CLI::App& sub, SharedFlags& flags) {
  flags.command = &sub;
  flags.started = std::chrono::steady_clock::now();
  flags.quiet = given(sub, "--quiet");
  flags.verbose = given(sub, "--verbose");
  bool data_on_stdout = false;
  for (const CLI::Option* option : sub.get_options())
    if (option->get_expected_max() > 0)
      for (const std::string& value : option->results())
        if (value == "-") data_on_stdout = true;
  if (flags.quiet || data_on_stdout) mute_stdout_reports();
  if (flags.quiet) flags.errors = &mute_stderr_reports();
  if (!flags.verbose) return;
  std::ostream& err = *flags.errors;
  try {
    err << "stasim " << sub.get_name() << ": configs folder " << (std::filesystem::path(data_dir()) / "configs").string()
        << '\n';
  } catch (const InputError&) {
    // The command itself reports a bad STASIM_DATA_DIR.
  }
  for (const char* name : kConfigOptions) {
    const CLI::Option* option = sub.get_option_no_throw(name);
    if (!option) continue;
    const std::string value = option->count() > 0 ? option->results().back() : option->get_default_str();
    for (const std::string& item : split_commas(value)) {
      try {
        const std::string path = std::string(name) == "--hw" ? resolve_hw(item) : resolve_model(item);
        err << "stasim " << sub.get_name() << ": " << name << " " << item << " -> " << path << '\n';
      } catch (const InputError&) {
        // Reported by the command, with the shipped names.
      }
    }
  }
}

void finish_command(const SharedFlags& flags) {
  if (!flags.verbose || !flags.command) return;
  std::ostream& err = *flags.errors;
  const CLI::App& sub = *flags.command;
  for (const char* name : kOutputOptions) {
    if (!given(sub, name)) continue;
    const std::string path = sub.get_option(name)->results().back();
    std::error_code ec;
    if (path == "-") err << "stasim " << sub.get_name() << ": " << name << " written to stdout\n";
    else if (std::filesystem::exists(path, ec))
      err << "stasim " << sub.get_name() << ": wrote " << name << " " << path << '\n';
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - flags.started).count();
  err << "stasim " << sub.get_name() << ": done in " << fmt::format("{:.2f} s", seconds) << '\n';
}

}  // namespace stasim::cli
