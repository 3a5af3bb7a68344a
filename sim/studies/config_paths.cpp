#include "sim/studies/config_paths.hpp"

#include <filesystem>

namespace stasim {
namespace {

std::string resolve(const std::string& name, const std::string& folder) {
  if (name.find('/') != std::string::npos || name.find(".yaml") != std::string::npos) return resolve_config_path(name);
  return resolve_config_path("configs/" + folder + "/" + name + ".yaml");
}

}  // namespace

std::string resolve_config_path(const std::string& path) {
  namespace fs = std::filesystem;
  // error_code forms: a path the file system cannot resolve (a symlink loop) is the loader's to report.
  std::error_code error;
  if (fs::exists(path, error) || fs::is_symlink(path, error)) return path;
  fs::path in_source = fs::path(STASIM_SOURCE_DIR) / path;
  if (fs::path(path).is_relative() && fs::exists(in_source, error)) return in_source.string();
  return path;  // let the loader report the missing file under the name the user gave
}

std::string resolve_hw(const std::string& name) { return resolve(name, "hw"); }
std::string resolve_model(const std::string& name) { return resolve(name, "models"); }

}  // namespace stasim
