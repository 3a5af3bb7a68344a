// `stasim goldens`: checks the schedule-timing goldens in tests/golden/ against fresh simulations, or with
// --update rewrites them and prints what moved (tools/update-goldens is the short way to call it).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "stasim/goldens.hpp"
#include "stasim/io.hpp"
#include "tools/cli.hpp"

namespace stasim::cli {
namespace {

struct GoldensOptions {
  std::string dir;  // empty: tests/golden of the source tree the binary was built from
  bool update = false;
};

nlohmann::json read_golden(const std::filesystem::path& file) {
  std::error_code missing;
  if (!std::filesystem::exists(file, missing)) return nlohmann::json();
  try {
    return nlohmann::json::parse(read_input_file(file.string(), "the golden file"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
  }
}

void run_goldens(const GoldensOptions& o) {
  namespace fs = std::filesystem;
  DataflowRegistry registry;
  register_builtin(registry);
  fs::path dir = o.dir.empty() ? fs::path(STASIM_SOURCE_DIR) / "tests/golden" : fs::path(o.dir);
  if (!o.update && !fs::is_directory(dir)) throw InputError(dir.string() + ": no such golden directory");
  if (o.update) fs::create_directories(dir);
  std::vector<GoldenCase> cases = golden_cases(STASIM_SOURCE_DIR);
  std::set<std::string> expected;
  std::vector<std::string> moved_rows, problems, left;
  std::size_t unchanged = 0;
  for (const GoldenCase& c : cases) {
    expected.insert(c.name + ".json");
    fs::path file = dir / (c.name + ".json");
    nlohmann::json golden = read_golden(file);
    forget_input_file(file.string());  // read back on purpose: the file --update replaces
    nlohmann::json now = golden_summary(c, STASIM_SOURCE_DIR, registry);
    std::vector<std::string> diff = golden.is_null() ? std::vector<std::string>{"no golden file " + file.string()}
                                                     : golden_diff(golden, now);
    unchanged += diff.empty();
    if (!diff.empty()) {
      moved_rows.push_back(golden_moved_row(c.name, golden, now));
      for (const std::string& d : diff) problems.push_back(c.name + ": " + d);
    }
    if (o.update && !diff.empty()) replace_output_file(file.string(), now.dump(2) + "\n", "the golden file");
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || expected.count(name)) continue;
    std::string stem = entry.path().stem().string();
    moved_rows.push_back(golden_moved_row(stem, read_golden(entry.path()), nlohmann::json()));
    problems.push_back(stem + ": golden file without a case (a model or schedule was removed)");
    // --update writes only the case files: a file it does not write is never removed (it may be anything).
    if (o.update) left.push_back(entry.path().string());
  }
  std::cout << unchanged << " of " << cases.size() << " golden cases unchanged (" << dir.string() << ")\n";
  if (moved_rows.empty()) return;
  std::cout << '\n' << golden_moved_header() << '\n';
  for (const std::string& row : moved_rows) std::cout << row << '\n';
  if (o.update) {
    std::cout << "\nrewrote the goldens above; review them with git diff " << dir.string() << '\n';
    for (const std::string& path : left)
      std::cout << "left " << path << " as it is (no golden case writes it): remove it yourself if its case is gone\n";
    return;
  }
  std::cout << '\n';
  for (const std::string& p : problems) std::cout << p << '\n';
  throw CheckFailed(std::to_string(problems.size()) +
                    " golden value(s) moved; if the change is intended, run tools/update-goldens and commit");
}

}  // namespace

void register_golden_commands(CLI::App& app) {
  auto opts = std::make_shared<GoldensOptions>();
  CLI::App* sub = app.add_subcommand("goldens", "Check (or --update) the schedule-timing goldens in tests/golden");
  sub->add_option("--dir", opts->dir, "golden directory (default: tests/golden of the source tree)");
  sub->add_flag("--update", opts->update, "rewrite the goldens that moved and print what moved");
  sub->callback([opts] { run_goldens(*opts); });
}

}  // namespace stasim::cli
