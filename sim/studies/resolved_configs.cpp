#include "sim/studies/resolved_configs.hpp"

#include <fstream>
#include <sstream>

#include "sim/core/build_info.hpp"
#include "sim/core/config_reader.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/config_paths.hpp"
#include "workloads/sha256.hpp"

namespace stasim {
namespace {

// Values from --set carry a private tag (config_reader.cpp, so messages can say "from --set"); the resolved config
// shows them as plain values, the way the same value written in the file would appear.
void untag_overrides(YAML::Node node) {
  if (node.Tag() == "!stasim-set") node.SetTag("?");
  if (node.IsSequence())
    for (YAML::Node item : node) untag_overrides(item);
  if (node.IsMap())
    for (auto kv : node) {
      YAML::Node key = kv.first;
      untag_overrides(key);
      untag_overrides(kv.second);
    }
}

std::string emit(const YAML::Node& node) {
  YAML::Node plain = YAML::Clone(node);
  untag_overrides(plain);
  YAML::Emitter out;
  out << plain;
  return std::string(out.c_str()) + "\n";
}

std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the file to record its SHA-256");
  std::stringstream bytes;
  bytes << in.rdbuf();
  return sha256_hex(bytes.str());
}

nlohmann::json entry(const ResolvedConfig& c) { return {{"name", c.name}, {"sha256", c.sha256()}}; }

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
  YAML::Node root = load_yaml_file(path);
  apply_overrides(root, split_sets(sets).second, path);
  return {name, emit(root)};
}

nlohmann::json configs_json(const ResolvedConfigs& configs) {
  nlohmann::json doc = nlohmann::json::object();
  if (!configs.hardware.empty()) doc["hardware"] = entry(configs.hardware.front());
  if (configs.models.size() == 1) {
    doc["model"] = entry(configs.models.front());
  } else if (!configs.models.empty()) {
    nlohmann::json models = nlohmann::json::object();
    for (const ResolvedConfig& m : configs.models) models[m.name] = {{"sha256", m.sha256()}};
    doc["models"] = models;
  }
  if (!configs.files.empty()) {
    nlohmann::json files = nlohmann::json::object();
    for (const InputFile& f : configs.files) files[f.role] = {{"name", f.given}, {"sha256", file_sha256(f.path)}};
    doc["files"] = files;
  }
  return doc;
}

std::string config_dump_text(const ResolvedConfigs& configs) {
  YAML::Node root(YAML::NodeType::Map);
  if (!configs.hardware.empty()) root["hardware"] = YAML::Load(configs.hardware.front().yaml);
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
