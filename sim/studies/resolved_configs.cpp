#include "sim/studies/resolved_configs.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/core/build_info.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/config_section.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/printable_text.hpp"
#include "sim/studies/config_paths.hpp"
#include "workloads/sha256.hpp"

namespace stasim {
namespace {

// The document as yaml-cpp nodes, for its emitter. Values from --set are plain values here, the way the same
// value written in the file would appear.
YAML::Node to_yaml_cpp(const YamlNode& node) {
  switch (node.type()) {
    case YamlNode::Type::scalar:
      return YAML::Node(node.scalar());
    case YamlNode::Type::sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (YamlNode item : node) out.push_back(to_yaml_cpp(item));
      if (node.size() == 0) out.SetStyle(YAML::EmitterStyle::Flow);  // "[]", as a parsed empty list emits
      return out;
    }
    case YamlNode::Type::map: {
      YAML::Node out(YAML::NodeType::Map);
      for (std::size_t i = 0; i < node.size(); ++i) {
        const YamlNode::Entry e = node.entry(i);
        out.force_insert(to_yaml_cpp(e.first), to_yaml_cpp(e.second));
      }
      if (node.size() == 0) out.SetStyle(YAML::EmitterStyle::Flow);  // "{}"
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

std::string emit(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

std::string emit(const YamlNode& node) { return emit(to_yaml_cpp(node)); }

// The loaders' wording, so a file that cannot be read fails the same way before and after provenance is taken.
std::string file_sha256(const std::string& path, const std::string& role) {
  // Read like every input (a regular file only: /dev/zero or a FIFO here used to read until memory ran out), and
  // bounded by the size it had when checked, which may pass the text limit (an activations checkpoint).
  const std::string what = "the " + role + " file";
  const std::uint64_t size = regular_file_size(path, what);
  return sha256_hex(read_input_file(path, what, std::max(size, kMaxInputFileBytes)));
}

// Names here are what the user typed (a shipped name or a path). A path cannot be refused for its bytes (it names
// a file that exists), so it is recorded escaped (\xNN for invalid UTF-8 and control characters): JSON holds
// UTF-8 only.
nlohmann::json entry(const ResolvedConfig& c) { return {{"name", escape_unprintable(c.name)}, {"sha256", c.sha256()}}; }

}  // namespace

std::string ResolvedConfig::sha256() const { return sha256_hex(yaml); }

std::pair<std::vector<std::string>, std::vector<std::string>> split_sets(const std::vector<std::string>& sets) {
  std::vector<std::string> hw, model;
  for (const std::string& s : sets) {
    if (s.rfind("model.", 0) == 0) model.push_back(s.substr(6));
    else hw.push_back(s);
  }
  return {hw, model};
}

ResolvedConfig resolved_hardware(const std::string& name, const std::vector<std::string>& sets) {
  return {name, emit(hardware_config_document(name, split_sets(sets).first))};
}

ResolvedConfig resolved_model(const std::string& name, const std::vector<std::string>& sets) {
  const std::string path = resolve_model(name);
  YamlNode root = config_section(load_yaml_file(path), "model", path);
  apply_overrides(root, split_sets(sets).second, path);
  return {name, emit(root)};
}

nlohmann::json configs_json(const ResolvedConfigs& configs) {
  nlohmann::json doc = nlohmann::json::object();
  if (configs.hardware.size() == 1) {
    doc["hardware"] = entry(configs.hardware.front());
  } else if (!configs.hardware.empty()) {  // a sweep over hardware (--hw trn2,trn3)
    nlohmann::json hw = nlohmann::json::object();
    for (const ResolvedConfig& h : configs.hardware) hw[h.name] = {{"sha256", h.sha256()}};
    doc["hw"] = hw;
  }
  if (configs.models.size() == 1) {
    doc["model"] = entry(configs.models.front());
  } else if (!configs.models.empty()) {
    nlohmann::json models = nlohmann::json::object();
    for (const ResolvedConfig& m : configs.models) models[escape_unprintable(m.name)] = {{"sha256", m.sha256()}};
    doc["models"] = models;
  }
  if (!configs.files.empty()) {
    nlohmann::json files = nlohmann::json::object();
    for (const InputFile& f : configs.files) files[f.role] = {{"name", escape_unprintable(f.given)}, {"sha256", file_sha256(f.path, f.role)}};
    doc["files"] = files;
  }
  return doc;
}

std::string config_dump_text(const ResolvedConfigs& configs) {
  YAML::Node root(YAML::NodeType::Map);
  if (configs.hardware.size() == 1) {
    root["hardware"] = YAML::Load(configs.hardware.front().yaml);
  } else if (!configs.hardware.empty()) {
    for (const ResolvedConfig& h : configs.hardware) root["hw"][h.name] = YAML::Load(h.yaml);
  }
  if (configs.models.size() == 1) {
    root["model"] = YAML::Load(configs.models.front().yaml);
  } else if (!configs.models.empty()) {
    for (const ResolvedConfig& m : configs.models) root["models"][m.name] = YAML::Load(m.yaml);
  }
  std::string head = std::string("# The resolved configs, written by stasim ") + stasim_version() + " (git " +
                     stasim_git_describe() +
                     "): hardware after its base chain and --set overrides, models after model.* overrides.\n"
                     "# Each section is a complete config: save it as a file of its own to pass to --hw / --model.\n";
  return head + emit(root);
}

}  // namespace stasim
