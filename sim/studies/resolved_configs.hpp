// The configs a command actually used, as YAML text: the hardware after its `base:` chain and `--set`
// overrides, each model after its `model.*` overrides. `--dump-config FILE` writes them; a result's provenance
// records the SHA-256 of each (of the config emitted on its own by yaml-cpp, so the hash depends on the values,
// not on the file's comments, layout or location).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace stasim {

struct ResolvedConfig {
  std::string name;   // as the user gave it ("trn3-calibrated", or a path)
  std::string yaml;   // the resolved document
  std::string sha256() const;
};

// Another input read whole (routes, a schedule, the reference figures), hashed byte for byte.
struct InputFile {
  std::string role;   // "routes", "schedule", "reference"
  std::string given;  // as the user gave it (what provenance shows)
  std::string path;   // where it was read
};

struct ResolvedConfigs {
  std::vector<ResolvedConfig> hardware;   // none (represent), one, or one per hardware of a sweep
  std::vector<ResolvedConfig> models;     // one per model the command runs
  std::vector<InputFile> files;
};

// `--set` values split into hardware keys and model keys (the `model.` prefix removed).
std::pair<std::vector<std::string>, std::vector<std::string>> split_sets(const std::vector<std::string>& sets);

// Hardware and models by name or path with the `--set` values that apply to them (both kinds may be passed:
// each side takes its own). InputError as the loaders report it.
ResolvedConfig resolved_hardware(const std::string& name, const std::vector<std::string>& sets = {});
ResolvedConfig resolved_model(const std::string& name, const std::vector<std::string>& sets = {});

// {"hardware": {"name", "sha256"}} with one hardware, "hw": {name: {"sha256"}} with several (a sweep over
// hardware); "model": {...} with one model, "models": {name: {...}} with several; and
// "files": {role: {"name", "sha256"}} for whole-file inputs.
nlohmann::json configs_json(const ResolvedConfigs& configs);

// The YAML text of --dump-config: a comment naming the simulator, then `hardware:` and `model:` (or `models:`).
std::string config_dump_text(const ResolvedConfigs& configs);

}  // namespace stasim
