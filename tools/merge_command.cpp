// `stasim merge`: joins the outputs of a sweep's shards into the file the unsharded sweep writes, and refuses
// a set of parts that would not give it: parts of different grids, a point with two different results, grid
// points in no part (unless --allow-missing: a partial merge, said on stderr), parts without a .meta.json whose
// grid cannot be checked (unless --allow-unverified), and parts another stasim version wrote.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "stasim/io.hpp"
#include "stasim/reports.hpp"
#include "stasim/sweep.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool allow_missing = false;
  bool allow_unverified = false;
};

void run_merge(const CLI::App& sub, const Invocation& invocation, const MergeOptions& o) {
  check_table_extension("--out", o.out, sweep_output_extensions());
  require_replaceable(o.out, "the merged output");
  SweepMerge merge = merge_sweep_parts(o.inputs);
  if (!merge.unverified.empty()) {
    std::string names;
    for (const std::string& path : merge.unverified) names += (names.empty() ? "" : ", ") + path;
    const std::string what = std::to_string(merge.unverified.size()) + " of " + std::to_string(o.inputs.size()) +
                             " parts record no grid (" + names + ": no .meta.json, or a merge with --allow-unverified "
                             "wrote it): their grid, setup and stasim version cannot be checked, so rows of different "
                             "sweeps could be merged into one file";
    if (!o.allow_unverified)
      throw InputError(what + "; merge the parts with the .meta.json their sweeps wrote beside them, or pass "
                       "--allow-unverified");
    std::fprintf(stderr, "merge: warning: %s (--allow-unverified: the merged file records no grid)\n", what.c_str());
  }
  const std::size_t points = merge.grid ? merge.grid->points : merge.rows.size() + merge.missing.size();
  if (!merge.missing.empty()) {
    const std::string what = std::to_string(merge.missing.size()) + " of " + std::to_string(points) +
                             " grid points are in no part: " + describe_points(merge.missing, merge.part_shards, points);
    if (!o.allow_missing)
      throw InputError(what + "; run the missing shards (with --resume, a killed one continues) or pass --allow-missing");
    std::fprintf(stderr, "merge: warning: %s\n", what.c_str());
  }
  std::vector<NamedPath> parts;
  for (const std::string& path : o.inputs) parts.push_back({"a part", path});
  check_output_paths({{"--out", o.out}, {"--out", o.out + ".meta.json"}}, parts);
  check_output_writable("--out", o.out);
  check_output_writable("--out", o.out + ".meta.json");
  const std::filesystem::path folder = std::filesystem::path(o.out).parent_path();
  std::error_code error;
  if (!folder.empty() && !std::filesystem::is_directory(folder, error)) {
    std::filesystem::create_directories(folder, error);
    if (error) throw InputError("--out " + o.out + ": cannot make its folder '" + folder.string() + "' (" + error.message() + ")");
  }
  write_sweep_rows(o.out, merge.rows);
  // The merged file's provenance: this merge, and each input's own (its sweep's command line and configs).
  nlohmann::json inputs = nlohmann::json::object();
  for (const std::string& path : o.inputs) {
    std::ifstream meta(path + ".meta.json");
    nlohmann::json doc = nlohmann::json::parse(meta, nullptr, false);
    inputs[path] = meta && !doc.is_discarded() && doc.contains("provenance") ? doc["provenance"] : nlohmann::json();
  }
  nlohmann::json meta = {{"provenance", provenance(sub, invocation)}, {"inputs", inputs}};
  // A complete merge is the whole grid, so it can be merged or resumed again like an unsharded sweep's output.
  // With parts whose grid is unknown it records none (null): resuming or merging it again checks no grid.
  meta["grid"] = merge.grid && merge.unverified.empty() ? merge.grid->to_json() : nlohmann::json();
  write_json_file(o.out + ".meta.json", meta);
  std::string notes;
  if (merge.duplicates) notes += "; " + std::to_string(merge.duplicates) + " repeated rows kept once";
  if (!merge.missing.empty()) notes += "; " + std::to_string(merge.missing.size()) + " grid points missing";
  std::printf("merge: %zu rows from %zu files%s; wrote %s\n", merge.rows.size(), o.inputs.size(), notes.c_str(),
              o.out.c_str());
}

}  // namespace

void register_merge_command(CLI::App& app, const Invocation& invocation) {
  auto m = std::make_shared<MergeOptions>();
  CLI::App* merge = app.add_subcommand("merge", "Merge sweep outputs (e.g. of --shard runs) into one file");
  merge->add_option("inputs", m->inputs, "sweep outputs (CSV or JSON lines)")->required();
  merge->add_option("--out", m->out, "merged output: .csv or .jsonl (.json); another extension is refused (its folder is made; an existing file is replaced)")
      ->required();
  merge->add_flag("--allow-missing", m->allow_missing, "write the merge even when grid points are in no part");
  merge->add_flag("--allow-unverified", m->allow_unverified,
                  "merge parts without a .meta.json (their grid, setup and version cannot be checked; the merged file "
                  "records no grid)");
  merge->callback([merge, m, &invocation] { run_merge(*merge, invocation, *m); });
}

}  // namespace stasim::cli
