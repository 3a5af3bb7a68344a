#include "sim/studies/sweep_output.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/number_text.hpp"

namespace stasim {
namespace {

// A number printed with 6 significant digits and read back: the short decimal a file keeps, the same on resume.
double six_digits(double value) {
  return text_to_double(format_double("%.6g", value));
}

}  // namespace

void parse_shard(const std::string& text, std::size_t& index, std::size_t& count) {
  auto digits = [](const std::string& part) {
    return !part.empty() && part.size() <= 9 && part.find_first_not_of("0123456789") == std::string::npos;
  };
  std::size_t slash = text.find('/');
  std::string first = slash == std::string::npos ? "" : text.substr(0, slash);
  std::string second = slash == std::string::npos ? "" : text.substr(slash + 1);
  if (!digits(first) || !digits(second)) throw InputError("--shard '" + text + "': expected i/N with 0 <= i < N");
  index = std::stoul(first);
  count = std::stoul(second);
  if (count == 0 || index >= count) throw InputError("--shard '" + text + "': expected i/N with 0 <= i < N");
}

void check_resumed_rows(const SweepTable& table, const std::vector<SweepPoint>& grid, const std::string& out) {
  std::map<std::string, std::size_t> index_of;
  for (const SweepPoint& p : grid) index_of.emplace(p.key(), p.index);
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const std::string key = table.rows[i]["key"].get<std::string>();
    auto found = index_of.find(key);
    if (found == index_of.end() || found->second != table.rows[i]["point"].get<std::size_t>())
      throw InputError(out + ":" + std::to_string(table.lines[i]) + ": '" + key +
                       "' is not a point of this sweep's grid (--resume continues the sweep that wrote the file; "
                       "write a different grid to another --out)");
  }
}

std::map<std::string, SweepRow> quality_cells(const std::vector<SweepPoint>& points, SweepQuality& quality,
                                              std::map<std::string, ModelSpec>& models, const DataflowRegistry& registry) {
  std::map<std::string, SweepRow> cells;
  std::map<std::string, std::string> failed;  // representation -> reason, reported once
  for (const SweepPoint& p : points) {
    Representation rep = registry.find(p.dataflow).representation(p.d, p.r, p.K);
    try {
      LayerQuality q = quality.quality(models.at(p.model), rep);
      cells[p.key()] = {{"nmse", six_digits(q.nmse)}, {"quality_bits_per_weight", std::round(q.bits_per_weight * 1e4) / 1e4}};
    } catch (const InputError& e) {
      std::string what = p.model + " " + rep.describe();
      if (failed.emplace(what, e.what()).second)
        std::fprintf(stderr, "quality: %s: no nmse (%s)\n", what.c_str(), e.what());
    }
  }
  return cells;
}

ResolvedConfigs sweep_configs(const SweepSpec& spec) {
  ResolvedConfigs configs;
  for (const std::string& hw : hardware_names(spec)) configs.hardware.push_back(resolved_hardware(hw, spec.base.sets));
  for (const std::string& model : spec.models) configs.models.push_back(resolved_model(model, spec.base.sets));
  if (!spec.base.routes.empty()) configs.files.push_back({"routes", spec.base.routes, spec.base.routes});
  return configs;
}

void make_parent_folder(const std::string& out) {
  const std::filesystem::path folder = std::filesystem::path(out).parent_path();
  std::error_code error;
  if (folder.empty() || std::filesystem::is_directory(folder, error)) return;
  std::filesystem::create_directories(folder, error);
  if (error) throw InputError("--out " + out + ": cannot make its folder '" + folder.string() + "' (" + error.message() + ")");
}

void check_resumed_setup(const std::string& out, const SweepGridInfo& grid) {
  const std::optional<SweepGridInfo> before = SweepGridInfo::from_meta(out + ".meta.json");
  forget_input_file(out + ".meta.json");  // read back on purpose: this sweep writes it again
  if (!before) return;
  check_same_version(out, *before, "--resume continues a sweep with the version that started it; rerun it with "
                     "--force, or write to another --out");
  if (before->setup == grid.setup) return;
  std::string why;
  for (const std::string& d : setup_differences(before->setup, grid.setup)) why += "\n  " + d + " (file vs now)";
  throw InputError(out + ": its rows come from a sweep with another setup (" + out + ".meta.json):" + why +
                   "\n--resume continues the sweep that wrote the file; write a different sweep to another --out");
}

}  // namespace stasim
