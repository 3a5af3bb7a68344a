// What a sweep's output records beside its rows (FILE.meta.json, key "grid") so that --resume and merge can
// tell the rows of its grid from another's. A row's key names the point's own inputs; the `setup` is what every
// point shares: the resolved hardware and models (name -> SHA-256), the routes file's SHA-256, --set,
// --tp/--lnc/--context, --routing-seed and the switches. The fingerprint is the SHA-256 of the setup and of
// every point's key in grid order: shards of one sweep share it, any change of the grid or the setup moves it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/studies/resolved_configs.hpp"
#include "sim/studies/sweep_grid.hpp"

namespace stasim {

struct SweepGridInfo {
  nlohmann::json setup = nlohmann::json::object();
  std::string fingerprint;
  std::size_t points = 0;             // in the whole grid
  std::size_t shard = 0, shards = 1;  // which part of it this output holds (merged: 0 of 1)

  std::string version;                // the stasim version that wrote the rows (the meta's provenance.stasim.version)

  nlohmann::json to_json() const;
  // The "grid" object of a .meta.json with the version of its provenance; nullopt when the file is missing, or
  // its grid is null (a merge of parts whose grids could not be checked: merge --allow-unverified). InputError
  // naming the file and what is wrong when it exists but cannot be read, is not JSON (a cut or corrupt file), or
  // lacks the grid or its fields: a sidecar that says nothing would switch the grid check off.
  static std::optional<SweepGridInfo> from_meta(const std::string& meta_path);
};

// `configs`: the sweep's hardware (with the --set values) and its models, plus its routes file if any.
SweepGridInfo sweep_grid_info(const SweepSpec& spec, const std::vector<SweepPoint>& grid,
                              const ResolvedConfigs& configs, std::size_t shard, std::size_t shards);

// Rows of another stasim version do not join this one's (--resume, merge): InputError naming `path`, both
// versions and what to do. `version` "" (a grid without one) counts as another version.
void check_same_version(const std::string& path, const SweepGridInfo& grid, const std::string& what);

// The setup entries that differ between `a` and `b`, as "key: A vs B" (one line each), for messages.
std::vector<std::string> setup_differences(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace stasim
