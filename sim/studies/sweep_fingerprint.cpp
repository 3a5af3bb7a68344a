#include "sim/studies/sweep_fingerprint.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "sim/core/build_info.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/studies/request_switches.hpp"
#include "workloads/sha256.hpp"

namespace stasim {
namespace {

nlohmann::json request_setup(const RunRequest& r) {
  auto count = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json setup = {{"set", r.sets}, {"tp", count(r.tp)}, {"lnc", count(r.lnc)}, {"context", count(r.context)},
                          {"routing_seed", r.routing_seed}};
  // Each switch as its axis value (on = the mechanism runs); the later ones only away from their default, so the
  // fingerprints of sweeps from before they existed stay valid.
  const RunRequest defaults;
  for (const RequestSwitch& s : request_switches())
    if (!s.fingerprint_when_set || s.on(r) != s.on(defaults)) setup[s.name] = s.on(r);
  return setup;
}

}  // namespace

nlohmann::json SweepGridInfo::to_json() const {
  return {{"fingerprint", fingerprint}, {"points", points}, {"shard", shard}, {"shards", shards}, {"setup", setup}};
}

std::optional<SweepGridInfo> SweepGridInfo::from_meta(const std::string& meta_path) {
  std::error_code missing;
  if (!std::filesystem::exists(meta_path, missing) && !std::filesystem::is_symlink(meta_path, missing)) return std::nullopt;
  regular_file_size(meta_path, "a sweep's grid record");  // a directory, FIFO or device is refused before reading
  std::ifstream in(meta_path, std::ios::binary);
  if (!in) throw InputError(meta_path + ": cannot open the sweep's grid record (" + std::strerror(errno) + ")");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (in.bad()) throw InputError(meta_path + ": cannot read the sweep's grid record (" + std::strerror(errno) + ")");
  const std::string fix = " (a cut or corrupt file: the grid of its rows cannot be checked; rerun the sweep that "
                          "wrote it, or restore the file)";
  if (doc.is_discarded()) throw InputError(meta_path + ": not valid JSON" + fix);
  if (!doc.is_object()) throw InputError(meta_path + ": expected a JSON object, got " + std::string(doc.type_name()) + fix);
  if (!doc.contains("grid")) throw InputError(meta_path + ": no grid" + fix);
  if (doc["grid"].is_null()) return std::nullopt;  // merge --allow-unverified: no grid to check
  const nlohmann::json version = doc.value("provenance", nlohmann::json::object()).is_object()
                                     ? doc["provenance"].value("stasim", nlohmann::json::object())
                                     : nlohmann::json();
  if (!version.is_object() || !version.value("version", nlohmann::json()).is_string())
    throw InputError(meta_path + ": provenance: expected stasim.version (the version that wrote the rows)" + fix);
  const nlohmann::json& g = doc["grid"];
  if (!g.is_object() || !g.value("fingerprint", nlohmann::json()).is_string() || !g.value("points", nlohmann::json()).is_number_unsigned() ||
      !g.value("shard", nlohmann::json()).is_number_unsigned() || !g.value("shards", nlohmann::json()).is_number_unsigned() ||
      !g.value("setup", nlohmann::json()).is_object() || g["shards"].get<std::size_t>() == 0)
    throw InputError(meta_path + ": grid: expected fingerprint, points, shard, shards and setup (a file stasim wrote)");
  SweepGridInfo info;
  info.fingerprint = g["fingerprint"].get<std::string>();
  info.points = g["points"].get<std::size_t>();
  info.shard = g["shard"].get<std::size_t>();
  info.shards = g["shards"].get<std::size_t>();
  info.setup = g["setup"];
  info.version = version["version"].get<std::string>();
  return info;
}

SweepGridInfo sweep_grid_info(const SweepSpec& spec, const std::vector<SweepPoint>& grid, const ResolvedConfigs& configs,
                              std::size_t shard, std::size_t shards) {
  SweepGridInfo info;
  const nlohmann::json hashes = configs_json(configs);
  // Each config by the name the sweep gave it and its hash: the name says which differs when two parts are
  // compared (merge, --resume), the hash whether a config of that name changed.
  nlohmann::json hardware = nlohmann::json::object();
  for (const ResolvedConfig& h : configs.hardware) hardware[h.name] = h.sha256();
  info.setup["hardware"] = hardware;
  nlohmann::json models = nlohmann::json::object();
  for (const ResolvedConfig& m : configs.models) models[m.name] = m.sha256();
  info.setup["models"] = models;
  const bool routes = hashes.contains("files") && hashes["files"].contains("routes");
  info.setup["routes"] = routes ? hashes["files"]["routes"]["sha256"] : nlohmann::json();
  info.setup["request"] = request_setup(spec.base);
  std::string text = info.setup.dump() + "\n";
  for (const SweepPoint& p : grid) text += p.key() + "\n";
  info.fingerprint = sha256_hex(text);
  info.points = grid.size();
  info.shard = shard;
  info.shards = shards;
  return info;
}

void check_same_version(const std::string& path, const SweepGridInfo& grid, const std::string& what) {
  if (grid.version == stasim_version()) return;
  throw InputError(path + ": its rows were written by stasim " + (grid.version.empty() ? "(unknown version)" : grid.version) +
                   ", this is stasim " + stasim_version() + " (" + path + ".meta.json); " + what);
}

namespace {

// The configs of two setups ({name: sha256}) compared by name: "hardware: trn2, trn3 vs trn3" when the names
// differ, "hardware trn3: another config (SHA-256 0123456789ab vs ...)" when a config of one name changed.
void config_differences(const std::string& what, const nlohmann::json& a, const nlohmann::json& b,
                        std::vector<std::string>& out) {
  auto names = [](const nlohmann::json& configs) {
    std::string text;
    for (const auto& item : configs.items()) text += (text.empty() ? "" : ", ") + item.key();
    return text.empty() ? std::string("none") : text;
  };
  if (names(a) != names(b)) {
    out.push_back(what + ": " + names(a) + " vs " + names(b));
    return;
  }
  auto short_hash = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>().substr(0, 12) : v.dump(); };
  for (const auto& item : a.items())
    if (item.value() != b[item.key()])
      out.push_back(what + " " + item.key() + ": another config (SHA-256 " + short_hash(item.value()) + " vs " +
                    short_hash(b[item.key()]) + ")");
}

}  // namespace

std::vector<std::string> setup_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const char* configs : {"hardware", "models"}) {
    const nlohmann::json x = a.value(configs, nlohmann::json()), y = b.value(configs, nlohmann::json());
    if (x.is_object() && y.is_object()) config_differences(configs, x, y, out);
    else if (x != y) out.push_back(std::string(configs) + ": " + x.dump() + " vs " + y.dump());
  }
  // Objects are compared entry by entry ("request.tp"), anything else (a list of --set values) as one value.
  std::function<void(const nlohmann::json&, const nlohmann::json&, const std::string&)> walk =
      [&](const nlohmann::json& x, const nlohmann::json& y, const std::string& path) {
        if (x.is_object() && y.is_object()) {
          std::set<std::string> keys;
          for (const auto& item : x.items()) keys.insert(item.key());
          for (const auto& item : y.items()) keys.insert(item.key());
          for (const std::string& key : keys)
            if (!path.empty() || (key != "hardware" && key != "models"))  // compared by name above
              walk(x.value(key, nlohmann::json()), y.value(key, nlohmann::json()), path.empty() ? key : path + "." + key);
        } else if (x != y) {
          out.push_back(path + ": " + x.dump() + " vs " + y.dump());
        }
      };
  walk(a, b, "");
  return out;
}

}  // namespace stasim
