// Hardware as an axis of a sweep (`--hw trn2,trn3`, `hw: [...]` in a sweep YAML): one point per hardware, each
// row naming it; the row's `layers` is the count simulated; merge and --resume name a config that differs by
// its name, not its hash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "sim/studies/sweep_table.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

// The TPOT `stasim run` reports for one setup (the sweep's down schedule, weight-sbuf, given explicitly).
double run_tpot(const std::string& args, const std::string& dir) {
  const std::string json = dir + "/run.json";
  Output o = run_stasim("run " + args + " --down-schedule weight-sbuf --quiet --json " + json);
  EXPECT_EQ(o.code, 0) << o.text;
  return nlohmann::json::parse(slurp(json))["tpot_us"].get<double>();
}

TEST(SweepHardwareAxis, EachHardwareIsAPointNamedInItsRow) {
  const std::string dir = fresh_dir("sweep_hw_", "axis");
  Output o = run_stasim("sweep --hw trn2,trn3 --dataflows dense --layers 1 --jobs 1 --out " + dir + "/hw.csv");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("sweep: 2 points, 2 run now"));
  const std::vector<SweepRow> rows = read_sweep_rows(dir + "/hw.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["hw"], "trn2");
  EXPECT_EQ(rows[1]["hw"], "trn3");
  EXPECT_EQ(rows[0]["key"], "model=qwen3-30b-a3b|hw=trn2|batch=1|layers=1|down=weight-sbuf|vary=|dataflow=dense|drk=-");
  // Each row is what `run` gives on that hardware, and each is its own baseline (speedup 1 against itself).
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--hw trn2 --dataflow dense --layers 1", dir));
  EXPECT_EQ(rows[1]["tpot_us"].get<double>(), run_tpot("--hw trn3 --dataflow dense --layers 1", dir));
  EXPECT_EQ(rows[0]["speedup_vs_dense"], 1.0);
  EXPECT_EQ(rows[1]["speedup_vs_dense"], 1.0);
  // The grid record names both configs with their hashes.
  const nlohmann::json meta = nlohmann::json::parse(slurp(dir + "/hw.csv.meta.json"));
  EXPECT_EQ(meta["grid"]["setup"]["hardware"].size(), 2u);
  EXPECT_TRUE(meta["grid"]["setup"]["hardware"].contains("trn2"));
  EXPECT_TRUE(meta["provenance"]["configs"]["hw"].contains("trn3"));
}

TEST(SweepHardwareAxis, ASweepYamlTakesAHardwareList) {
  const std::string dir = fresh_dir("sweep_hw_", "yaml");
  std::ofstream(dir + "/s.yaml") << "dataflows: [dense]\nhw: [trn3, trn2]\nlayers: 1\n";
  Output o = run_stasim("sweep --config " + dir + "/s.yaml --jobs 1 --out " + dir + "/s.jsonl");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<SweepRow> rows = read_sweep_rows(dir + "/s.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["hw"], "trn3");  // in the order given
  EXPECT_EQ(rows[1]["hw"], "trn2");
}

TEST(SweepHardwareAxis, TheLayersCellIsTheCountSimulated) {
  const std::string dir = fresh_dir("sweep_hw_", "layers");
  // No --layers: all of Qwen3-30B-A3B's 48 layers run, and the row says 48, not the request's 0.
  Output o = run_stasim("sweep --dataflows dense --jobs 1 --out " + dir + "/all.csv");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<SweepRow> rows = read_sweep_rows(dir + "/all.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["layers"], 48);
  EXPECT_EQ(rows[0]["key"], "model=qwen3-30b-a3b|hw=trn3-calibrated|batch=1|layers=0|down=weight-sbuf|vary=|dataflow=dense|drk=-");
}

TEST(SweepHardwareAxis, BadHardwareListsAreRefused) {
  const std::string dir = fresh_dir("sweep_hw_", "bad");
  Output twice = run_stasim("sweep --hw trn2,trn2 --layers 1 --out " + dir + "/a.csv");
  EXPECT_EQ(twice.code, 2);
  EXPECT_THAT(twice.text, HasSubstr("--hw: 'trn2' is given twice"));
  Output unknown = run_stasim("sweep --hw trn2,trn9 --layers 1 --out " + dir + "/b.csv");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.text, HasSubstr("--hw: no hardware 'trn9'"));
  Output vary = run_stasim("sweep --vary hw=trn2,trn3 --layers 1 --out " + dir + "/c.csv");
  EXPECT_EQ(vary.code, 2);
  EXPECT_THAT(vary.text, HasSubstr("error: --vary hw: the hardware is an axis of its own: --hw trn2,trn3"));
}

TEST(SweepHardwareAxis, MergeNamesTheHardwareThatDiffers) {
  const std::string dir = fresh_dir("sweep_hw_", "merge");
  ASSERT_EQ(run_stasim("sweep --hw trn2 --dataflows dense,cardan --layers 1 --jobs 1 --shard 0/2 --out " + dir + "/p0.csv").code, 0);
  ASSERT_EQ(run_stasim("sweep --hw trn3 --dataflows dense,cardan --layers 1 --jobs 1 --shard 1/2 --out " + dir + "/p1.csv").code, 0);
  Output o = run_stasim("merge " + dir + "/p0.csv " + dir + "/p1.csv --out " + dir + "/m.csv");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("parts of different sweep grids (hardware: trn2 vs trn3; grid fingerprints"));

  // One name, two contents: the config of that name changed between the parts.
  std::ofstream(dir + "/hw.yaml") << "base: trn3\n";
  ASSERT_EQ(run_stasim("sweep --hw " + dir + "/hw.yaml --dataflows dense,cardan --layers 1 --jobs 1 --shard 0/2 --out " + dir + "/q0.csv").code, 0);
  std::ofstream(dir + "/hw.yaml") << "base: trn3\ncore:\n  dma:\n    engines: 8\n";
  ASSERT_EQ(run_stasim("sweep --hw " + dir + "/hw.yaml --dataflows dense,cardan --layers 1 --jobs 1 --shard 1/2 --out " + dir + "/q1.csv").code, 0);
  Output changed = run_stasim("merge " + dir + "/q0.csv " + dir + "/q1.csv --out " + dir + "/n.csv");
  EXPECT_EQ(changed.code, 2);
  EXPECT_THAT(changed.text, HasSubstr("(hardware " + dir + "/hw.yaml: another config (SHA-256 "));
}

}  // namespace
}  // namespace stasim::test
