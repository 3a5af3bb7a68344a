#include "sim/core/config_section.hpp"

#include <array>

#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

const std::array<const char*, 4> kDumpSections = {"hardware", "hw", "model", "models"};

bool is_dump_section(const std::string& key) {
  for (const char* s : kDumpSections)
    if (key == s) return true;
  return false;
}

}  // namespace

YamlNode config_section(const YamlNode& root, const std::string& section, const std::string& file) {
  if (!root.is_map() || root.size() == 0) return root;
  std::string held;
  for (const auto& entry : root) {
    if (!is_dump_section(entry.first.scalar())) return root;  // a config of its own
    held += (held.empty() ? "" : ", ") + entry.first.scalar();
  }
  if (YamlNode single = root[section]) return single;
  const std::string plural = section == "hardware" ? "hw" : "models";
  const YamlNode several = root[plural];
  if (several && several.is_map() && several.size() == 1) return several.entry(0).second;
  if (several && several.is_map()) {
    std::string names;
    for (const auto& entry : several) names += (names.empty() ? "" : ", ") + entry.first.scalar();
    throw InputError(mark_of(several, file) + ": " + plural + ": a config dump with " + std::to_string(several.size()) +
                     " " + section + " configs (" + names + "); save the one to use as a file of its own");
  }
  throw InputError(mark_of(root, file) + ": a config dump (--dump-config) without a " + section + ": section (it holds " +
                   held + ")");
}

}  // namespace stasim
