// Sweep outputs that would be silently wrong are refused at input (exit 2, the file or option named, nothing
// written): a cut or corrupt FILE.meta.json (it would switch the grid check off), rows or parts of another stasim
// version, a grid value given twice (two points with one key), a point key that is not printable UTF-8 (it would
// not read back as written), and merging parts without a .meta.json unless --allow-unverified. Run through the
// binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/build_info.hpp"
#include "tests/cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using stasim::test::Output;
using stasim::test::run_shell;
using stasim::test::run_stasim;
using stasim::test::slurp;
using testing::HasSubstr;

// A folder of its own per test, emptied first (outputs are refused when they exist).
std::string fresh_dir(const std::string& name) { return stasim::test::fresh_dir("sweep_integrity_", name); }

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// 1 dense point + 2 x 2 cardan points (indices 0..4), one layer each.
const std::string kGrid = "sweep --layers 1 --d 4,8 --r 0,256 --K 256 --jobs 1";

// The sweep's output and its .meta.json, to check that a refused command left both as they were.
struct Kept {
  std::string out, meta;
};

Kept kept(const std::string& out) { return {slurp(out), slurp(out + ".meta.json")}; }

void expect_kept(const std::string& out, const Kept& before) {
  EXPECT_EQ(slurp(out), before.out) << out;
  EXPECT_EQ(slurp(out + ".meta.json"), before.meta) << out;
}

// ---- 1. A .meta.json that exists but says nothing usable is an input error, not "no grid to check" ----------

TEST(SweepIntegrityCli, ACutOrCorruptMetaIsRefusedOnResume) {
  const std::string dir = fresh_dir("meta_resume");
  const std::string out = dir + "/grid.csv";
  ASSERT_EQ(run_stasim(kGrid + " --out " + out).code, 0);
  const std::string meta = slurp(out + ".meta.json");

  // Cut in the middle (a full disk, a copy that stopped): before, --resume read no grid and went on.
  put(out + ".meta.json", meta.substr(0, meta.size() / 2));
  Kept before = kept(out);
  Output o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: " + out + ".meta.json: not valid JSON (a cut or corrupt file: the grid of its "
                                "rows cannot be checked; rerun the sweep that wrote it, or restore the file)"));
  expect_kept(out, before);

  // JSON, but not what a sweep writes: no grid, a grid without its fields, no version.
  put(out + ".meta.json", "[1, 2]\n");
  o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(out + ".meta.json: expected a JSON object, got array (a cut or corrupt file"));
  put(out + ".meta.json", R"({"provenance": {"stasim": {"version": "0.1.0"}}})");
  before = kept(out);
  o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(out + ".meta.json: no grid (a cut or corrupt file"));
  expect_kept(out, before);
  nlohmann::json doc = nlohmann::json::parse(meta);
  doc["grid"].erase("setup");
  put(out + ".meta.json", doc.dump());
  o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(out + ".meta.json: grid: expected fingerprint, points, shard, shards and setup"));
  doc = nlohmann::json::parse(meta);
  doc["provenance"].erase("stasim");
  put(out + ".meta.json", doc.dump());
  o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(out + ".meta.json: provenance: expected stasim.version (the version that wrote the rows)"));

  // Restored, the same resume runs nothing and leaves the file as it was.
  put(out + ".meta.json", meta);
  const std::string rows = slurp(out);
  o = run_stasim(kGrid + " --resume --out " + out);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("sweep: 5 points, 0 run now with 1 jobs"));
  EXPECT_EQ(slurp(out), rows);
}

TEST(SweepIntegrityCli, ACutOrCorruptMetaIsRefusedByMerge) {
  const std::string dir = fresh_dir("meta_merge");
  ASSERT_EQ(run_stasim(kGrid + " --shard 0/2 --out " + dir + "/p0.csv").code, 0);
  // The other part is of another grid (r = 0 only); its cut .meta.json would have hidden that.
  ASSERT_EQ(run_stasim("sweep --layers 1 --d 4,8 --r 0 --K 256 --jobs 1 --shard 1/2 --out " + dir + "/p1.csv").code, 0);
  const std::string meta = slurp(dir + "/p1.csv.meta.json");
  put(dir + "/p1.csv.meta.json", meta.substr(0, 100));
  Output o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --allow-missing --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: " + dir + "/p1.csv.meta.json: not valid JSON (a cut or corrupt file"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv.meta.json"));
  // Whole again, the grids are told apart.
  put(dir + "/p1.csv.meta.json", meta);
  o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --allow-missing --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(": parts of different sweep grids (5 vs 3 points;"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));
}

// ---- 2. Rows of another stasim version neither resume nor merge ----------------------------------------------

TEST(SweepIntegrityCli, RowsOfAnotherVersionAreRefused) {
  const std::string dir = fresh_dir("version");
  const std::string version = stasim::stasim_version();
  ASSERT_EQ(run_stasim(kGrid + " --shard 0/2 --out " + dir + "/p0.csv").code, 0);
  ASSERT_EQ(run_stasim(kGrid + " --shard 1/2 --out " + dir + "/p1.csv").code, 0);
  nlohmann::json doc = read_json(dir + "/p1.csv.meta.json");
  EXPECT_EQ(doc["provenance"]["stasim"]["version"], version);
  doc["provenance"]["stasim"]["version"] = "0.0.7";
  put(dir + "/p1.csv.meta.json", doc.dump(2) + "\n");

  Output o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: " + dir + "/p1.csv: its rows were written by stasim 0.0.7, this is stasim " +
                                version + " (" + dir + "/p1.csv.meta.json); rows of two versions may differ in what "
                                "they mean; rerun the sweep (or all its shards) with one version, then merge with it"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));

  const Kept before = kept(dir + "/p1.csv");
  o = run_stasim(kGrid + " --shard 1/2 --resume --out " + dir + "/p1.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: " + dir + "/p1.csv: its rows were written by stasim 0.0.7, this is stasim " +
                                version + " (" + dir + "/p1.csv.meta.json); --resume continues a sweep with the version "
                                "that started it; rerun it with --force, or write to another --out"));
  expect_kept(dir + "/p1.csv", before);

  // --force replaces it with this version's rows, which merge.
  ASSERT_EQ(run_stasim(kGrid + " --shard 1/2 --force --out " + dir + "/p1.csv").code, 0);
  o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("merge: 5 rows from 2 files; wrote " + dir + "/m.csv"));
}

// ---- 3. A value given twice on an axis --------------------------------------------------------------------------

TEST(SweepIntegrityCli, AValueGivenTwiceOnAnAxisIsRefused) {
  const std::string dir = fresh_dir("repeated");
  const std::string out = dir + "/grid.csv";
  const std::string why = " is given twice (each value is one point of the grid: two points with one key collide in "
                          "the output, and --resume and merge cannot tell them apart); give each value once";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--layers 1 --r 0,0,64", "--r: '0'"},
      {"--layers 1 --r 0:128:64,64", "--r: '64'"},
      {"--layers 1 --d 8 --K 256,256", "--K: '256'"},
      {"--layers 1 --batch 1,2,1", "--batch: '1'"},
      {"--layers 1 --models qwen3-30b-a3b,qwen3-30b-a3b", "--models: 'qwen3-30b-a3b'"},
      {"--layers 1 --dataflows dense,cardan,dense", "--dataflows: 'dense'"},
      {"--layers 1 --vary core.dma.engines=8,16,8", "--vary core.dma.engines: '8'"},
      // The same switch value in two spellings is one value.
      {"--layers 1 --dataflows cardan --vary option.reuse=1,true", "--vary option.reuse: '1'"},
  };
  for (const auto& [args, what] : cases) {
    Output o = run_stasim("sweep " + args + " --jobs 1 --out " + out);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr("error: " + what + why)) << args;
    EXPECT_FALSE(fs::exists(out)) << args;
    EXPECT_FALSE(fs::exists(out + ".meta.json")) << args;
  }
  // In a sweep file too.
  put(dir + "/twice.yaml", "dataflows: [dense, cardan]\nlayers: 1\nr: [0, 64, 0]\n");
  Output o = run_stasim("sweep --config " + dir + "/twice.yaml --jobs 1 --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --r: '0'" + why));
  EXPECT_FALSE(fs::exists(out));
}

// ---- 4. A point's key is printable UTF-8 -------------------------------------------------------------------------

TEST(SweepIntegrityCli, AControlCharacterOrInvalidUtf8InAKeyIsRefused) {
  const std::string dir = fresh_dir("unprintable");
  const std::string out = dir + "/grid.csv";
  const std::string why = "; a point's key is a cell of the output that --resume and merge read back, so it must be "
                          "printable UTF-8";
  // A newline in a value became a space in the CSV, so --resume read back a key the grid does not have.
  Output o = run_shell(std::string(STASIM_BINARY) + " sweep --layers 1 --dataflows dense --jobs 1 --vary "
                       "\"core.dma.engines=8,$(printf '1\\n6')\" --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --vary core.dma.engines: '1\\x0a6' holds a control character (0x0a) at byte 2" + why));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".meta.json"));
  o = run_shell(std::string(STASIM_BINARY) + " sweep --layers 1 --dataflows dense --jobs 1 --vary "
                "\"core.dma.engines=8,$(printf '16\\377')\" --out " + dir + "/grid.jsonl");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --vary core.dma.engines: '16\\xff' holds invalid UTF-8 at byte 3" + why));
  EXPECT_FALSE(fs::exists(dir + "/grid.jsonl"));
  // From a sweep file (a tab in a double-quoted YAML string), and a C1 control character in UTF-8.
  put(dir + "/tab.yaml", "dataflows: [dense]\nlayers: 1\nvary:\n  core.dma.engines: [\"8\", \"1\\t6\"]\n");
  o = run_stasim("sweep --config " + dir + "/tab.yaml --jobs 1 --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --vary core.dma.engines: '1\\x096' holds a control character (0x09) at byte 2" + why));
  o = run_shell(std::string(STASIM_BINARY) + " sweep --layers 1 --dataflows dense --jobs 1 --vary "
                "\"core.dma.engines=8,$(printf '1\\302\\2056')\" --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --vary core.dma.engines: '1\\xc2\\x856' holds a control character (U+0085) at byte 2" + why));
  EXPECT_FALSE(fs::exists(out));

  // Resuming: the same refusal, the output kept as it was; printable UTF-8 (é) writes and resumes as written.
  const std::string eh = "model.name=q\xc3\xa9";
  ASSERT_EQ(run_stasim("sweep --layers 1 --dataflows dense --jobs 1 --vary '" + eh + "' --out " + out).code, 0);
  const Kept before = kept(out);
  EXPECT_THAT(before.out, HasSubstr("|vary=" + eh + "|"));
  o = run_shell(std::string(STASIM_BINARY) + " sweep --layers 1 --dataflows dense --jobs 1 --vary "
                "\"model.name=q\xc3\xa9,$(printf 'q\\033')\" --resume --out " + out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --vary model.name: 'q\\x1b' holds a control character (0x1b) at byte 2" + why));
  expect_kept(out, before);
  o = run_stasim("sweep --layers 1 --dataflows dense --jobs 1 --vary '" + eh + "' --resume --out " + out);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("sweep: 1 points, 0 run now with 1 jobs"));
  EXPECT_EQ(slurp(out), before.out);

  // A key with a control character in a file (written by hand or by another tool) is refused where it is.
  std::string text = before.out;
  text.replace(text.find("|vary=") + 1, 0, "\x01");
  put(dir + "/hand.csv", text);
  o = run_stasim("merge " + dir + "/hand.csv --allow-unverified --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: " + dir + "/hand.csv:2: column key: holds a control character (0x01) at byte "));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));
}

// ---- 5. Parts without a .meta.json are merged only with --allow-unverified -------------------------------------

TEST(SweepIntegrityCli, PartsWithoutMetaNeedAllowUnverified) {
  const std::string dir = fresh_dir("unverified");
  ASSERT_EQ(run_stasim(kGrid + " --out " + dir + "/all.csv").code, 0);
  ASSERT_EQ(run_stasim(kGrid + " --shard 0/2 --out " + dir + "/p0.csv").code, 0);
  ASSERT_EQ(run_stasim(kGrid + " --shard 1/2 --out " + dir + "/p1.csv").code, 0);
  fs::remove(dir + "/p1.csv.meta.json");

  Output o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: 1 of 2 parts record no grid (" + dir + "/p1.csv: no .meta.json, or a merge "
                                "with --allow-unverified wrote it): their grid, setup and stasim version cannot be "
                                "checked, so rows of different sweeps could be merged into one file; merge the parts "
                                "with the .meta.json their sweeps wrote beside them, or pass --allow-unverified"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv"));
  EXPECT_FALSE(fs::exists(dir + "/m.csv.meta.json"));

  o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --allow-unverified --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("merge: warning: 1 of 2 parts record no grid (" + dir + "/p1.csv: no .meta.json"));
  EXPECT_THAT(o.text, HasSubstr("(--allow-unverified: the merged file records no grid)"));
  EXPECT_EQ(slurp(dir + "/m.csv"), slurp(dir + "/all.csv"));
  EXPECT_TRUE(read_json(dir + "/m.csv.meta.json")["grid"].is_null());

  // The merged file says it was not checked: merging it again needs the flag again.
  o = run_stasim("merge " + dir + "/m.csv --out " + dir + "/m2.csv");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: 1 of 1 parts record no grid (" + dir + "/m.csv: "));
  EXPECT_FALSE(fs::exists(dir + "/m2.csv"));

  o = run_stasim("merge --help");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--allow-unverified"));
}

}  // namespace
