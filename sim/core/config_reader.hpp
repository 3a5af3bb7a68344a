// Reads one YAML mapping into a config struct. Every key read is recorded so finish() can report unknown keys
// with a did-you-mean; type and range problems name file:line:column and the key path. Problems are
// collected, not thrown, so one run reports all of them; the caller throws once (Problems::throw_if_any).
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"

namespace stasim {

// Loads a YAML file; a missing file or a syntax error is an InputError naming the file, line and column.
YAML::Node load_yaml_file(const std::string& path);
// The same for YAML text already in memory; `file` names it in messages.
YAML::Node parse_yaml_text(const std::string& text, const std::string& file);

// Applies `key.path=value` overrides to a loaded document. Each path must name an existing key (a typo gets a
// did-you-mean); the value is parsed as YAML and then validated like the file's own values.
void apply_overrides(YAML::Node root, const std::vector<std::string>& sets, const std::string& file);

class ConfigReader {
 public:
  ConfigReader(YAML::Node node, std::string file, std::string path, Problems& problems);

  bool has(const std::string& key) const;
  // Reads `key` into `out` when present (out keeps its default otherwise).
  template <class T>
  ConfigReader& optional(const std::string& key, T& out);
  // Reads `key` into `out`; a missing key is a problem.
  template <class T>
  ConfigReader& required(const std::string& key, T& out);
  // The nested mapping at `key`; a missing required section is a problem (the reader then reads nothing).
  ConfigReader section(const std::string& key, bool required = true);

  // The list at `key` (an empty node when absent and optional); anything but a list is a problem.
  YAML::Node list(const std::string& key, bool required = true);

  // A range or consistency problem of `key`; skipped when the key already has a problem (missing, wrong type)
  // or the mapping itself is bad or absent, so one mistake gives one message.
  void check(bool ok, const std::string& key, const std::string& message);
  // True when `key` was missing or could not be read (its value is still the default).
  bool failed(const std::string& key) const { return failed_.count(key) > 0; }
  template <class T>
  void positive(const std::string& key, T value) {
    check(value > 0, key, "must be positive");
  }
  template <class T>
  void non_negative(const std::string& key, T value) {
    check(value >= 0, key, "must not be negative");
  }
  // low <= value <= high ("must not be negative", "must be positive", "must be at least/at most X"): the range in which the model's arithmetic (integer picoseconds, 64-bit byte counts)
  // stays meaningful, e.g. a clock of 1e-300 GHz would make every op last longer than int64 picoseconds hold.
  void within(const std::string& key, double value, double low, double high);

  // "file:line:column: path.key" for messages about `key` (or about this mapping when key is empty).
  std::string where(const std::string& key = "") const;
  std::string key_path(const std::string& key) const;
  void problem(const std::string& key, const std::string& message);
  // Reports every key of the mapping that was never read.
  void finish();

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  Problems& problems() { return *problems_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
  Problems* problems_;
  std::set<std::string> known_;
  std::set<std::string> failed_;  // keys missing or of the wrong type: no range check repeats their problem
  bool valid_ = true;
};

// "file:line:column" of a YAML node, or "file (from --set)" for a value that came from an override.
std::string mark_of(const YAML::Node& node, const std::string& file);
// Where a message about the key `key` with value `value` points: the value when it came from --set (the file
// does not hold it), the key's position otherwise.
std::string mark_of_key(const YAML::Node& key, const YAML::Node& value, const std::string& file);

}  // namespace stasim
