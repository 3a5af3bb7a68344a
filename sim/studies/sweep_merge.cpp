#include "sim/studies/sweep_merge.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

// The columns finalize() derives from the whole table: two copies of one point may differ only there.
SweepRow own_cells(SweepRow row) {
  for (const char* derived : {"speedup_vs_dense", "pareto", "pareto_quality"}) row.erase(derived);
  return row;
}

// The first cell two copies of a point disagree on, "tpot_us 1.5 vs 1.6".
std::string first_difference(const SweepRow& a, const SweepRow& b) {
  for (const auto& item : a.items()) {
    const nlohmann::json other = b.value(item.key(), nlohmann::json());
    if (other != item.value()) return item.key() + " " + item.value().dump() + " vs " + other.dump();
  }
  return "a column only one of them has";
}

void check_same_grid(const std::vector<std::optional<SweepGridInfo>>& grids, const std::vector<std::string>& paths) {
  std::size_t first = grids.size();
  for (std::size_t i = 0; i < grids.size(); ++i) {
    if (!grids[i]) continue;
    if (first == grids.size()) {
      first = i;
      continue;
    }
    const SweepGridInfo& a = *grids[first];
    const SweepGridInfo& b = *grids[i];
    if (a.fingerprint == b.fingerprint) continue;
    std::string why;
    for (const std::string& d : setup_differences(a.setup, b.setup)) why += (why.empty() ? "" : "; ") + d;
    if (why.empty())
      why = a.points == b.points ? "the same setup and number of points, but other points"
                                 : std::to_string(a.points) + " vs " + std::to_string(b.points) + " points";
    throw InputError(paths[first] + " and " + paths[i] + ": parts of different sweep grids (" + why +
                     "; grid fingerprints in their .meta.json: " + a.fingerprint.substr(0, 12) + " vs " +
                     b.fingerprint.substr(0, 12) + "); merge the parts of one sweep");
  }
}

}  // namespace

SweepMerge merge_sweep_parts(const std::vector<std::string>& paths) {
  std::vector<SweepTable> parts;
  std::vector<std::optional<SweepGridInfo>> grids;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw InputError(path + ": no such sweep output");
    parts.push_back(read_sweep_table(path));
    grids.push_back(SweepGridInfo::from_meta(path + ".meta.json"));
    if (grids.back())
      check_same_version(path, *grids.back(), "rows of two versions may differ in what they mean; rerun the sweep (or "
                         "all its shards) with one version, then merge with it");
  }
  check_same_grid(grids, paths);
  check_one_grid(parts, paths);

  SweepMerge merge;
  for (std::size_t f = 0; f < paths.size(); ++f)
    if (!grids[f]) merge.unverified.push_back(paths[f]);
  std::map<std::string, std::pair<SweepRow, std::string>> first;  // key -> (own cells, where)
  for (std::size_t f = 0; f < parts.size(); ++f) {
    for (std::size_t i = 0; i < parts[f].rows.size(); ++i) {
      SweepRow& row = parts[f].rows[i];
      const std::string where = paths[f] + ":" + std::to_string(parts[f].lines[i]);
      const std::string key = row["key"].get<std::string>();
      auto [at, fresh] = first.emplace(key, std::make_pair(own_cells(row), where));
      if (fresh) {
        merge.rows.push_back(std::move(row));
        continue;
      }
      const SweepRow mine = own_cells(row);
      if (mine != at->second.first)
        throw InputError(where + ": point " + std::to_string(row["point"].get<std::uint64_t>()) + " is also at " +
                         at->second.second + " with another result (" + first_difference(at->second.first, mine) +
                         "); keep one of the two parts");
      ++merge.duplicates;
    }
  }
  finalize(merge.rows);

  for (const auto& g : grids)
    if (g && !merge.grid) {
      merge.grid = g;
      merge.part_shards = g->shards;
      merge.grid->shard = 0;
      merge.grid->shards = 1;
    }
  std::set<std::size_t> have;
  for (const SweepRow& row : merge.rows) have.insert(row["point"].get<std::size_t>());
  const std::size_t end = merge.grid ? merge.grid->points : (have.empty() ? 0 : *have.rbegin() + 1);
  for (std::size_t p = 0; p < end; ++p)
    if (!have.count(p)) merge.missing.push_back(p);
  return merge;
}

std::string describe_points(const std::vector<std::size_t>& points, std::size_t shards, std::size_t total) {
  auto list = [](const std::vector<std::size_t>& items) {
    constexpr std::size_t kShown = 5;
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < kShown; ++i) out += (i == 0 ? "" : ", ") + std::to_string(items[i]);
    if (items.size() > kShown) out += " and " + std::to_string(items.size() - kShown) + " more";
    return out;
  };
  if (shards <= 1) return "points " + list(points);
  // By shard: a shard that never ran is named as such, which says what to rerun.
  std::map<std::size_t, std::vector<std::size_t>> by_shard;
  for (std::size_t p : points) by_shard[p % shards].push_back(p);
  std::string out;
  for (const auto& [shard, missing] : by_shard) {
    const std::size_t size = shard < total ? (total - shard + shards - 1) / shards : 0;
    out += (out.empty() ? "" : "; ") + std::string("shard ") + std::to_string(shard) + "/" + std::to_string(shards) + " (" +
           (missing.size() == size ? "all " : "") + std::to_string(missing.size()) + " of its " + std::to_string(size) +
           " points: " + list(missing) + ")";
  }
  return out;
}

}  // namespace stasim
