// Reads one YAML mapping into a config struct. Every key read is recorded so finish() can report unknown keys
// with a did-you-mean; type and range problems name file:line:column and the key path. Problems are
// collected, not thrown, so one run reports all of them; the caller throws once (Problems::throw_if_any).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"
#include "sim/core/yaml_node.hpp"

namespace stasim {

// Loads a YAML file (a regular file of at most kMaxInputFileBytes, sim/core/input_file.hpp); a missing file, a
// syntax error, a second document or an alias bomb is an InputError naming the file, line and column.
YamlNode load_yaml_file(const std::string& path);
// The same for YAML text already in memory; `file` names it in messages.
YamlNode parse_yaml_text(const std::string& text, const std::string& file);

// Applies `key.path=value` overrides to a loaded document. Each path must name an existing key (a typo gets a
// did-you-mean); the value is parsed as YAML and then validated like the file's own values. An empty value
// (`--set core.dma=`) is an empty value like `dma:` in the file: an error for a section, never "all defaults".
void apply_overrides(YamlNode root, const std::vector<std::string>& sets, const std::string& file);

class ConfigReader {
 public:
  ConfigReader(YamlNode node, std::string file, std::string path, Problems& problems);

  bool has(const std::string& key) const;
  // Reads `key` into `out` when present (out keeps its default otherwise).
  template <class T>
  ConfigReader& optional(const std::string& key, T& out);
  // Reads `key` into `out`; a missing key is a problem.
  template <class T>
  ConfigReader& required(const std::string& key, T& out);
  // The nested mapping at `key`; a missing required section is a problem (the reader then reads nothing). A
  // section that is present but empty (`dma:` with nothing under it) is always a problem: read as "all
  // defaults" it gave zero rates; to mean an optional section's absence, leave the key out.
  ConfigReader section(const std::string& key, bool required = true);

  // The list at `key` (an undefined node when absent and optional); anything but a list, including an empty
  // value, is a problem.
  YamlNode list(const std::string& key, bool required = true);

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

  const YamlNode& node() const { return node_; }
  const std::string& file() const { return file_; }
  Problems& problems() { return *problems_; }

 private:
  YamlNode node_;
  std::string file_;
  std::string path_;
  Problems* problems_;
  std::set<std::string> known_;
  std::set<std::string> failed_;  // keys missing or of the wrong type: no range check repeats their problem
  bool valid_ = true;
};

// "file:line:column" of a YAML node, or "file (from --set)" for a value that came from an override.
std::string mark_of(const YamlNode& node, const std::string& file);
// Where a message about the key `key` with value `value` points: the value when it came from --set (the file
// does not hold it), the key's position otherwise.
std::string mark_of_key(const YamlNode& key, const YamlNode& value, const std::string& file);

}  // namespace stasim
