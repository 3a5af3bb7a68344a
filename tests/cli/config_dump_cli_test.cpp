// `--dump-config FILE` is accepted back whole: --hw FILE reads its `hardware:` section, --model FILE its `model:`,
// and a run from the dump gives the result of the run that wrote it, figure for figure and hash for hash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

nlohmann::json run_json(const std::string& args, const std::string& json) {
  Output o = run_stasim("run " + args + " --layers 1 --quiet --json " + json);
  EXPECT_EQ(o.code, 0) << o.text;
  nlohmann::json doc = nlohmann::json::parse(slurp(json));
  return doc;
}

TEST(ConfigDump, ARunFromItsOwnDumpGivesTheSameResult) {
  const std::string dir = fresh_dir("config_dump_", "round_trip");
  const std::string dump = dir + "/resolved.yaml";
  // The overlay's base chain and a --set of each kind are resolved into the dump.
  const std::string sets = "--hw trn3-calibrated --model olmoe-1b-7b --set core.dma.engines=8 --set model.deployment.batch=2";
  nlohmann::json first = run_json(sets + " --dump-config " + dump, dir + "/first.json");
  for (const std::string& from : {"--hw " + dump + " --model olmoe-1b-7b --set model.deployment.batch=2",
                                  "--hw " + dump + " --model " + dump, "--model " + dump + " --set core.dma.engines=8"}) {
    SCOPED_TRACE(from);
    nlohmann::json again = run_json(from, dir + "/again.json");
    EXPECT_EQ(again["tpot_us"], first["tpot_us"]);
    EXPECT_EQ(again["hardware"], "trn3-calibrated");
    EXPECT_EQ(again["model"], "OLMoE-1B-7B");
    // The resolved configs are the same documents: the same SHA-256 in the provenance.
    EXPECT_EQ(again["provenance"]["configs"]["hardware"]["sha256"], first["provenance"]["configs"]["hardware"]["sha256"]);
    EXPECT_EQ(again["provenance"]["configs"]["model"]["sha256"], first["provenance"]["configs"]["model"]["sha256"]);
    again.erase("provenance");
    nlohmann::json expected = first;
    expected.erase("provenance");
    EXPECT_EQ(again, expected);
  }
}

TEST(ConfigDump, ADumpWithoutTheSectionSaysWhatItHolds) {
  const std::string dir = fresh_dir("config_dump_", "sections");
  std::ofstream(dir + "/hw_only.yaml") << "hardware:\n  base: trn3\n";
  Output o = run_stasim("run --layers 1 --model " + dir + "/hw_only.yaml");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr(dir + "/hw_only.yaml:1:1: a config dump (--dump-config) without a model: section (it holds hardware)"));
  std::ofstream(dir + "/two.yaml") << "models:\n  a:\n    name: x\n  b:\n    name: y\n";
  Output two = run_stasim("run --layers 1 --model " + dir + "/two.yaml");
  EXPECT_EQ(two.code, 2);
  EXPECT_THAT(two.text, HasSubstr(dir + "/two.yaml:2:3: models: a config dump with 2 model configs (a, b); save the one "
                                  "to use as a file of its own"));
}

}  // namespace
}  // namespace stasim::test
