#include "sim/core/config_reader.hpp"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <map>
#include <limits>
#include <sstream>

#include "sim/core/input_file.hpp"
#include "sim/core/number_text.hpp"
#include "sim/core/printable_text.hpp"

namespace stasim {
namespace {

std::string describe(const YamlNode& node) {
  if (node.is_scalar()) return "'" + node.scalar() + "'";
  if (node.is_sequence()) return "a list";
  if (node.is_map()) return "a mapping";
  return "nothing";
}

template <class T>
const char* type_name();
template <> const char* type_name<double>() { return "a number"; }
template <> const char* type_name<std::int64_t>() { return "an integer"; }
template <> const char* type_name<int>() { return "an integer"; }
template <> const char* type_name<std::uint32_t>() { return "a non-negative integer"; }
template <> const char* type_name<std::uint64_t>() { return "a non-negative integer"; }
template <> const char* type_name<bool>() { return "true or false"; }
template <> const char* type_name<std::string>() { return "a string"; }
template <> const char* type_name<std::vector<std::string>>() { return "a list of strings"; }
template <> const char* type_name<std::vector<std::int64_t>>() { return "a list of integers"; }

// yaml-cpp converts "-1" to a huge unsigned and "1.5" to an integer silently in some versions; parse strictly.
template <class T>
bool convert(const YamlNode& node, T& out) {
  if (!node.is_scalar()) return false;
  const std::string text = node.scalar();
  if constexpr (std::is_same_v<T, std::string>) {
    out = text;
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "True") { out = true; return true; }
    if (text == "false" || text == "False") { out = false; return true; }
    return false;
  } else if constexpr (std::is_same_v<T, double>) {
    try {
      size_t used = 0;
      double v = text_to_double(text, &used);
      if (used != text.size() || !std::isfinite(v)) return false;
      out = v;
      return true;
    } catch (...) {
      return false;
    }
  } else if constexpr (std::is_unsigned_v<T>) {
    if (text.empty() || text[0] == '-') return false;
    try {
      size_t used = 0;
      unsigned long long v = std::stoull(text, &used, 10);
      if (used != text.size() || v > std::numeric_limits<T>::max()) return false;
      out = static_cast<T>(v);
      return true;
    } catch (...) {
      return false;
    }
  } else {
    try {
      size_t used = 0;
      long long v = std::stoll(text, &used, 10);
      if (used != text.size()) return false;
      if (std::is_unsigned_v<T> && v < 0) return false;
      if constexpr (sizeof(T) < sizeof(long long)) {
        if (v > static_cast<long long>(std::numeric_limits<T>::max()) ||
            v < static_cast<long long>(std::numeric_limits<T>::min()))
          return false;
      }
      out = static_cast<T>(v);
      return true;
    } catch (...) {
      return false;
    }
  }
}

// An integer literal the target type cannot hold ("-1" for a count, 2^64 for anything) gets its own message.
template <class T>
bool integer_out_of_range(const YamlNode& node) {
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
    return false;
  } else {
    if (!node.is_scalar()) return false;
    const std::string text = node.scalar();
    if (std::is_unsigned_v<T> && !text.empty() && text[0] == '-') return false;  // "expected a non-negative integer"
    std::size_t digits = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    return text.size() > digits && text.find_first_not_of("0123456789", digits) == std::string::npos;
  }
}

template <class T>
std::string integer_range() {
  return std::to_string(std::numeric_limits<T>::min()) + ".." + std::to_string(std::numeric_limits<T>::max());
}

template <class T>
bool convert_list(const YamlNode& node, std::vector<T>& out) {
  if (!node.is_sequence()) return false;
  std::vector<T> values;
  for (const auto& item : node) {
    T v{};
    if (!convert(item, v)) return false;
    values.push_back(v);
  }
  out = std::move(values);
  return true;
}

}  // namespace

std::string mark_of(const YamlNode& node, const std::string& file) {
  if (node.from_override()) return file + " (from --set)";
  if (!node.has_mark()) return file;
  return file + ":" + std::to_string(node.line() + 1) + ":" + std::to_string(node.column() + 1);
}

namespace {

// yaml-cpp keeps a repeated key (lookups see the first, iteration both) and accepts lists or mappings as keys,
// which readers then cannot name: both are problems, reported with the key's position. Nesting is cut at
// kMaxDepth levels (no config is deeper; aliases inside their own anchor are refused by the parser already).
constexpr int kMaxDepth = 64;

enum class TextRole { key, name, value };

// Keys and names must be printable UTF-8; any other text value may also hold tabs and line feeds (a folded
// `source: >-`). Invalid UTF-8 would stop the JSON writer and a control character breaks a line of the outputs.
bool check_text(const YamlNode& node, const std::string& path, const std::string& file, Problems& problems,
                TextRole role) {
  const std::string text = node.scalar();
  const std::string problem = unprintable(text, role == TextRole::value);
  if (problem.empty()) return true;
  const std::string shown = escape_unprintable(text.size() > 256 ? text.substr(0, 256) + "..." : text);
  const std::string where = path.empty() ? "(top level)" : path;
  if (role == TextRole::key)
    problems.add(mark_of(node, file) + ": " + where + ": the key '" + shown + "' holds " + problem +
                 " (keys must be printable UTF-8)");
  else
    problems.add(mark_of(node, file) + ": " + where + ": '" + shown + "' holds " + problem + " (" +
                 (role == TextRole::name ? "a name is printed in every output, so it must be printable UTF-8"
                                         : "text must be UTF-8 without control characters other than tab and line feed") +
                 ")");
  return false;
}

void check_keys(const YamlNode& node, const std::string& path, const std::string& file, Problems& problems,
                int depth = 0) {
  // Thrown at once: walking on would take as long as the (unbounded) document is deep or wide.
  if (depth > kMaxDepth)
    throw InputError(mark_of(node, file) + ": nested deeper than " + std::to_string(kMaxDepth) +
                     " levels");
  if (node.is_scalar()) {  // a name is printed in every output: no line break either
    const bool name = path == "name" || (path.size() > 5 && path.compare(path.size() - 5, 5, ".name") == 0);
    check_text(node, path, file, problems, name ? TextRole::name : TextRole::value);
    return;
  }
  if (node.is_sequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_keys(node[i], path + "[" + std::to_string(i) + "]", file, problems, depth + 1);
    return;
  }
  if (!node.is_map()) return;
  std::map<std::string, int> first_line;
  for (const auto& kv : node) {
    if (!kv.first.is_scalar()) {
      problems.add(mark_of(kv.first, file) + ": " + (path.empty() ? "(top level)" : path) +
                   ": a key must be a plain name, got " + describe(kv.first));
      continue;
    }
    const std::string key = kv.first.scalar();
    if (!check_text(kv.first, path, file, problems, TextRole::key)) continue;
    const std::string key_path = path.empty() ? key : path + "." + key;
    auto [it, fresh] = first_line.emplace(key, kv.first.line() + 1);
    if (!fresh)
      problems.add(mark_of(kv.first, file) + ": " + key_path + ": duplicate key" +
                   (kv.first.from_override() ? "" : " (first at line " + std::to_string(it->second) + ")"));
    check_keys(kv.second, key_path, file, problems, depth + 1);
  }
}

}  // namespace

std::string mark_of_key(const YamlNode& key, const YamlNode& value, const std::string& file) {
  return mark_of(value.from_override() ? value : key, file);
}

YamlNode load_yaml_file(const std::string& path) { return parse_yaml_text(read_input_file(path, "the file"), path); }

YamlNode parse_yaml_text(const std::string& text, const std::string& file) {
  YamlNode root = parse_yaml_document(text, file);
  if (!root.is_map()) throw InputError(file + ": expected a YAML mapping at the top level");
  Problems problems;
  check_keys(root, "", file, problems);
  problems.throw_if_any();
  return root;
}

void apply_overrides(YamlNode root, const std::vector<std::string>& sets, const std::string& file) {
  Problems problems;
  for (const auto& set : sets) {
    // Messages quote the option escaped: its bytes are the user's, the message is one clean line.
    const std::string label = "--set " + escape_unprintable(set);
    auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      problems.add(label + ": expected key.path=value");
      continue;
    }
    std::string path = set.substr(0, eq);
    std::string value = set.substr(eq + 1);
    if (const std::string bad = unprintable(path); !bad.empty()) {
      problems.add(label + ": the key path holds " + bad + " (keys must be printable UTF-8)");
      continue;
    }
    std::vector<std::string> parts;
    std::stringstream ss(path);
    for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
    if (parts.empty() || std::find(parts.begin(), parts.end(), "") != parts.end()) {
      problems.add(label + ": '" + path + "' is not a key path (names separated by single dots)");
      continue;
    }

    YamlNode parent = root;
    std::string walked;
    std::size_t entry = 0;  // the entry of `parent` the last part names
    bool ok = true;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      std::vector<std::string> keys;
      bool exists = false;
      for (std::size_t e = 0; e < parent.size() && parent.is_map(); ++e) {
        keys.push_back(parent.entry(e).first.scalar());
        if (!exists && keys.back() == part) {
          exists = true;
          entry = e;
        }
      }
      if (!exists) {
        std::string near = nearest_match(part, keys);
        problems.add(label + ": " + file + " has no key '" + (walked.empty() ? "" : walked + ".") + part +
                     "'" + (near.empty() ? "" : " (did you mean '" + (walked.empty() ? "" : walked + ".") + near + "'?)"));
        ok = false;
        break;
      }
      walked += (walked.empty() ? "" : ".") + part;
      if (i + 1 < parts.size()) {
        YamlNode next = parent.entry(entry).second;
        if (!next.is_map()) {
          problems.add(label + ": '" + walked + "' is not a section");
          ok = false;
          break;
        }
        parent = next;
      }
    }
    if (!ok) continue;
    YamlNode fresh;
    try {
      // Parsed like a file (one document, bounded aliases), so a value cannot smuggle in what a file cannot.
      fresh = parse_yaml_document(value, label);
    } catch (const InputError& e) {
      problems.add(std::string(e.what()));
      continue;
    }
    if (!fresh.is_defined()) fresh = parse_yaml_document("~", label);  // an empty value is a null
    fresh.mark_override();
    std::size_t before = problems.count();
    check_keys(fresh, walked, file, problems);  // a list as a key, or a repeated key, e.g. {a: 1, a: 2}
    if (problems.count() != before) continue;
    YamlNode::Entry old = parent.entry(entry);
    parent.replace_entry(entry, old.first, fresh);
  }
  problems.throw_if_any();
}

ConfigReader::ConfigReader(YamlNode node, std::string file, std::string path, Problems& problems)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), problems_(&problems) {
  // An absent section (undefined node) reads as empty; anything else must be a mapping. An empty value (a list
  // entry `- ` or a key with nothing after it) is a problem too: read as empty it silently meant "all defaults".
  valid_ = node_.is_map();
  if (node_.is_null()) problems_->add(where() + ": is empty (expected a mapping of its keys)");
  else if (node_.is_defined() && !node_.is_map()) problems_->add(where() + ": expected a mapping, got " + describe(node_));
}

bool ConfigReader::has(const std::string& key) const { return valid_ && node_[key].is_defined(); }

std::string ConfigReader::key_path(const std::string& key) const {
  if (key.empty()) return path_.empty() ? "(top level)" : path_;
  return path_.empty() ? key : path_ + "." + key;
}

std::string ConfigReader::where(const std::string& key) const {
  std::string location = file_;
  if (valid_ && !key.empty()) {
    for (const auto& kv : node_) {
      if (kv.first.scalar() == key) {
        // A value from --set is reported as such; a file value at its key's position.
        location = mark_of_key(kv.first, kv.second, file_);
        break;
      }
    }
  } else if (node_.is_defined()) {
    location = mark_of(node_, file_);
  }
  return location + ": " + key_path(key);
}

void ConfigReader::problem(const std::string& key, const std::string& message) {
  problems_->add(where(key) + ": " + message);
}

void ConfigReader::within(const std::string& key, double value, double low, double high) {
  auto text = [](double v) {
    std::ostringstream out;
    if (v == std::floor(v) && std::fabs(v) < 1e15) out << static_cast<long long>(v);
    else out << v;
    return out.str();
  };
  if (value < low)
    check(false, key, low == 0 ? "must not be negative" : value <= 0 ? "must be positive" : "must be at least " + text(low));
  else if (value > high)
    check(false, key, "must be at most " + text(high));
}

void ConfigReader::check(bool ok, const std::string& key, const std::string& message) {
  if (!ok && valid_ && !failed(key)) problem(key, message);
}

template <class T>
ConfigReader& ConfigReader::optional(const std::string& key, T& out) {
  known_.insert(key);
  if (!valid_) return *this;
  YamlNode value = node_[key];
  if (!value) return *this;
  bool ok;
  if constexpr (std::is_same_v<T, std::vector<std::string>> || std::is_same_v<T, std::vector<std::int64_t>>)
    ok = convert_list(value, out);
  else
    ok = convert(value, out);
  if (ok) return *this;
  failed_.insert(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (integer_out_of_range<T>(value)) {
      problem(key, "'" + value.scalar() + "' is out of range (" + integer_range<T>() + ")");
      return *this;
    }
  }
  problem(key, std::string("expected ") + type_name<T>() + ", got " + describe(value));
  return *this;
}

template <class T>
ConfigReader& ConfigReader::required(const std::string& key, T& out) {
  known_.insert(key);
  if (valid_ && !node_[key]) {
    failed_.insert(key);
    problems_->add(where() + ": missing required key '" + key_path(key) + "'");
    return *this;
  }
  return optional(key, out);
}

ConfigReader ConfigReader::section(const std::string& key, bool required) {
  known_.insert(key);
  YamlNode child;
  if (valid_) {
    YamlNode found = node_[key];
    if (found.is_null()) {
      // Named at the key (an empty value's own position is wherever the next line starts).
      problem(key, required ? "is empty (a required section: give its keys)"
                            : "is empty (give its keys, or leave the key out for no " + key + " section)");
      failed_.insert(key);
    } else if (found) {
      child = found;
    } else if (required) {
      problems_->add(where() + ": missing required section '" + key_path(key) + "'");
    }
  }
  return ConfigReader(child, file_, key_path(key), *problems_);
}

YamlNode ConfigReader::list(const std::string& key, bool required) {
  known_.insert(key);
  if (!valid_) return YamlNode();
  YamlNode found = node_[key];
  if (!found.is_defined()) {
    if (required) problems_->add(where() + ": missing required list '" + key_path(key) + "'");
    return YamlNode();
  }
  if (!found.is_sequence()) {
    failed_.insert(key);
    problem(key, found.is_null() ? "is empty (expected a list; [] for none)" : "expected a list, got " + describe(found));
    return YamlNode();
  }
  return found;
}

void ConfigReader::finish() {
  if (!valid_) return;
  std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& kv : node_) {
    std::string key = kv.first.scalar();
    if (known_.count(key)) continue;
    std::string near = nearest_match(key, known);
    problems_->add(mark_of(kv.first, file_) + ": " + key_path(key) + ": unknown key" +
                   (near.empty() ? "" : " (did you mean '" + key_path(near) + "'?)"));
  }
}

template ConfigReader& ConfigReader::optional<double>(const std::string&, double&);
template ConfigReader& ConfigReader::optional<std::int64_t>(const std::string&, std::int64_t&);
template ConfigReader& ConfigReader::optional<int>(const std::string&, int&);
template ConfigReader& ConfigReader::optional<std::uint32_t>(const std::string&, std::uint32_t&);
template ConfigReader& ConfigReader::optional<std::uint64_t>(const std::string&, std::uint64_t&);
template ConfigReader& ConfigReader::optional<bool>(const std::string&, bool&);
template ConfigReader& ConfigReader::optional<std::string>(const std::string&, std::string&);
template ConfigReader& ConfigReader::optional<std::vector<std::string>>(const std::string&, std::vector<std::string>&);
template ConfigReader& ConfigReader::optional<std::vector<std::int64_t>>(const std::string&, std::vector<std::int64_t>&);
template ConfigReader& ConfigReader::required<double>(const std::string&, double&);
template ConfigReader& ConfigReader::required<std::int64_t>(const std::string&, std::int64_t&);
template ConfigReader& ConfigReader::required<int>(const std::string&, int&);
template ConfigReader& ConfigReader::required<std::uint32_t>(const std::string&, std::uint32_t&);
template ConfigReader& ConfigReader::required<std::uint64_t>(const std::string&, std::uint64_t&);
template ConfigReader& ConfigReader::required<bool>(const std::string&, bool&);
template ConfigReader& ConfigReader::required<std::string>(const std::string&, std::string&);
template ConfigReader& ConfigReader::required<std::vector<std::string>>(const std::string&, std::vector<std::string>&);

}  // namespace stasim
