// Where the shipped configs are found: a path as given when it exists, else relative to the source tree the
// library was built from, so the binary and embedders work from any directory. Short names of shipped configs
// ("trn3", "qwen3-30b-a3b") resolve to configs/<folder>/<name>.yaml.
#pragma once

#include <string>

namespace stasim {

std::string resolve_config_path(const std::string& path);
std::string resolve_hw(const std::string& name);
std::string resolve_model(const std::string& name);

}  // namespace stasim
