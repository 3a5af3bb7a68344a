// Where the shipped configs are found, the one place that resolves config names and paths. The data folder
// (the one holding configs/) is, in order: $STASIM_DATA_DIR; <prefix>/share/stasim beside an installed binary
// (found from the running executable, so a moved prefix still works); the source tree the program was built
// from. A path is taken as given when it exists, else relative to the data folder; a short name of a shipped
// config ("trn3", "qwen3-30b-a3b") is configs/<folder>/<name>.yaml in the data folder.
#pragma once

#include <string>
#include <vector>

#include "sim/core/hardware_config.hpp"

namespace stasim {

// The data folder; InputError when $STASIM_DATA_DIR is set but holds no configs/ folder.
std::string data_dir();

std::string resolve_config_path(const std::string& path);
// A shipped name resolves to its file or throws InputError "no model 'NAME' (did you mean 'X'?); shipped
// models: A, B, ... (or give the path of a YAML file)"; a path is resolved by resolve_config_path.
std::string resolve_hw(const std::string& name);
std::string resolve_model(const std::string& name);
std::string resolve_sweep(const std::string& name);
// The shipped names in configs/<folder> ("hw", "models", "sweeps"), sorted.
std::vector<std::string> shipped_configs(const std::string& folder);

// The file of the shipped hardware config `name`, "" when there is none (how an overlay's `base: trn3` is found).
std::string shipped_hw_path(const std::string& name);
// The shipped name of the hardware file at `path` ("trn3" for <data>/configs/hw/trn3.yaml), "" when it is not one.
std::string shipped_hw_name(const std::string& path);

// What an overlay at `overlay_path` writes as its `base:` to reach the hardware file `base_path`: the shipped
// name when it is a shipped config (found from any folder), else its path relative to the overlay's folder (the
// two then move together).
std::string overlay_base_reference(const std::string& base_path, const std::string& overlay_path);

// Hardware by name or path with `key.path=value` overrides, overlays reaching shipped bases by name.
HardwareConfig load_hardware_config(const std::string& name, const std::vector<std::string>& overrides = {});
YamlNode hardware_config_document(const std::string& name, const std::vector<std::string>& overrides = {});

}  // namespace stasim
