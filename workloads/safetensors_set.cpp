#include "workloads/safetensors_set.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "sim/core/json_input.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"

namespace stasim {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The file inside a directory that stands for the whole set.
std::string pick_in_directory(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir / "model.safetensors.index.json", error)) return (dir / "model.safetensors.index.json").string();
  if (fs::exists(dir / "model.safetensors", error)) return (dir / "model.safetensors").string();
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && ends_with(entry.path().filename().string(), ".safetensors"))
      found.push_back(entry.path().string());
  if (found.size() == 1) return found.front();
  throw InputError(dir.string() + ": expected model.safetensors.index.json, model.safetensors or a single .safetensors "
                   "file in the directory, found " + std::to_string(found.size()) + " .safetensors files");
}

}  // namespace

SafetensorsSet::SafetensorsSet(const std::string& path) : path_(path) {
  std::error_code error;
  if (!fs::exists(path, error)) throw InputError(path + ": no such weights file or directory");
  std::string file = fs::is_directory(path, error) ? pick_in_directory(path) : path;
  if (!ends_with(file, ".json")) {
    single_ = file;
    return;
  }
  nlohmann::json index;
  try {
    index = parse_json_input(read_input_file(file, "the index"), file);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file + ": the index is not valid JSON (" + e.what() + ")");
  }
  auto map = index.is_object() ? index.find("weight_map") : index.end();
  if (!index.is_object() || map == index.end() || !map->is_object())
    throw InputError(file + ": the index has no \"weight_map\" object (tensor name -> shard file)");
  fs::path dir = fs::path(file).parent_path();
  Problems problems;
  for (const auto& item : map->items()) {
    if (!item.value().is_string()) {
      problems.add(file + ": weight_map '" + item.key() + "' is not a shard file name");
      continue;
    }
    weight_map_[item.key()] = (dir / item.value().get<std::string>()).string();
  }
  problems.throw_if_any();
  if (weight_map_.empty()) throw InputError(file + ": the index's weight_map is empty");
  path_ = file;
}

const SafetensorsFile& SafetensorsSet::open(const std::string& file) const {
  auto it = open_.find(file);
  if (it == open_.end()) it = open_.emplace(file, std::make_unique<SafetensorsFile>(file)).first;
  return *it->second;
}

bool SafetensorsSet::has(const std::string& name) const {
  if (!sharded()) return open(single_).has(name);
  auto it = weight_map_.find(name);
  return it != weight_map_.end() && open(it->second).has(name);
}

const SafetensorsFile& SafetensorsSet::file_of(const std::string& name) const {
  if (!sharded()) {
    const SafetensorsFile& file = open(single_);
    file.find(name);  // throws naming the file and the tensor
    return file;
  }
  auto it = weight_map_.find(name);
  if (it == weight_map_.end()) {
    std::vector<std::string> names;
    for (const auto& item : weight_map_) names.push_back(item.first);
    std::string near = nearest_match(name, names);
    throw InputError(path_ + ": no tensor '" + name + "' in the weight_map" +
                     (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  const SafetensorsFile& file = open(it->second);
  if (!file.has(name))
    throw InputError(path_ + ": the weight_map puts tensor '" + name + "' in " + it->second + ", which has no such tensor");
  return file;
}

}  // namespace stasim
