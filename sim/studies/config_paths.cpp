#include "sim/studies/config_paths.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "sim/core/edit_distance.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

namespace fs = std::filesystem;

bool has_configs(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "configs", ec);
}

bool looks_like_path(const std::string& name) {
  return name.find('/') != std::string::npos || name.find(".yaml") != std::string::npos;
}

std::string resolve(const std::string& name, const std::string& folder, const std::string& what,
                    const std::string& plural) {
  if (looks_like_path(name)) return resolve_config_path(name);
  const fs::path file = fs::path(data_dir()) / "configs" / folder / (name + ".yaml");
  std::error_code ec;
  if (fs::exists(file, ec)) return file.string();
  // A short name that ships nowhere is a typo or a guess: say what does ship.
  const std::vector<std::string> names = shipped_configs(folder);
  std::string list;
  for (const std::string& shipped : names) list += (list.empty() ? "" : ", ") + shipped;
  throw InputError("no " + what + " '" + name + "'" + did_you_mean(name, names) + "; shipped " + plural + ": " +
                   (list.empty() ? "none" : list) + " (or give the path of a YAML file)");
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("STASIM_DATA_DIR"); env && *env) {
    if (!has_configs(env))
      throw InputError(std::string("STASIM_DATA_DIR=") + env +
                       ": no configs/ folder there (it names the folder that holds configs/, e.g. <prefix>/share/stasim)");
    return env;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = (exe.parent_path() / STASIM_BIN_TO_DATA_DIR).lexically_normal();
    if (has_configs(installed)) return installed.string();
  }
  // (config_paths.hpp's order, with one more place before the source tree.) In the Python module (this code in
  // a shared object that python3 loaded), the data lies beside the module:
  // in the package's own data/ (what `pip install .` ships) or, after `cmake --install`, in <prefix>/share/stasim
  // reached from the module's folder.
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&data_dir), &self) != 0 && self.dli_fname != nullptr) {
    const fs::path object = fs::canonical(self.dli_fname, ec);
    if (!ec && object != fs::canonical(exe, ec)) {
      const fs::path folder = object.parent_path();
      if (has_configs(folder / "data")) return (folder / "data").string();
      // Only an installed module reaches for a prefix (one in a build tree could find an unrelated share/stasim).
      const std::string installed_suffix = "/" STASIM_PYTHON_INSTALL_DIR "/stasim";
      const std::string where = folder.string();
      const fs::path prefix_data = (folder / STASIM_MODULE_TO_DATA_DIR).lexically_normal();
      if (where.size() >= installed_suffix.size() &&
          where.compare(where.size() - installed_suffix.size(), installed_suffix.size(), installed_suffix) == 0 &&
          has_configs(prefix_data))
        return prefix_data.string();
    }
  }
  return STASIM_SOURCE_DIR;
}

std::string resolve_config_path(const std::string& path) {
  // error_code forms: a path the file system cannot resolve (a symlink loop) is the loader's to report.
  std::error_code error;
  if (fs::exists(path, error) || fs::is_symlink(path, error)) return path;
  fs::path in_data = fs::path(data_dir()) / path;
  if (fs::path(path).is_relative() && fs::exists(in_data, error)) return in_data.string();
  return path;  // let the loader report the missing file under the name the user gave
}

std::vector<std::string> shipped_configs(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(data_dir()) / "configs" / folder, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_hw(const std::string& name) { return resolve(name, "hw", "hardware", "hardware"); }
std::string resolve_model(const std::string& name) { return resolve(name, "models", "model", "models"); }
std::string resolve_sweep(const std::string& name) { return resolve(name, "sweeps", "sweep", "sweeps"); }

std::string shipped_hw_path(const std::string& name) {
  if (name.empty() || looks_like_path(name)) return "";
  std::error_code ec;
  const fs::path path = fs::path(data_dir()) / "configs" / "hw" / (name + ".yaml");
  return fs::exists(path, ec) ? path.string() : "";
}

std::string shipped_hw_name(const std::string& path) {
  std::error_code ec;
  fs::path file = fs::canonical(path, ec);
  if (ec || file.extension() != ".yaml") return "";
  fs::path shipped = fs::canonical(fs::path(data_dir()) / "configs" / "hw", ec);
  if (ec || file.parent_path() != shipped) return "";
  return file.stem().string();
}

std::string overlay_base_reference(const std::string& base_path, const std::string& overlay_path) {
  const std::string shipped = shipped_hw_name(base_path);
  if (!shipped.empty()) return shipped;
  const fs::path folder = fs::absolute(fs::path(overlay_path)).parent_path();
  return fs::relative(fs::absolute(base_path), folder).lexically_normal().string();
}

HardwareConfig load_hardware_config(const std::string& name, const std::vector<std::string>& overrides) {
  return load_hardware(resolve_hw(name), overrides, shipped_hw_path);
}

YamlNode hardware_config_document(const std::string& name, const std::vector<std::string>& overrides) {
  return resolved_hardware_document(resolve_hw(name), overrides, shipped_hw_path);
}

}  // namespace stasim
