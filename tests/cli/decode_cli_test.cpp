// `stasim run` and `stasim compare` end to end: defaults run with no argument, JSON fields, and bad input
// (exit 2 with the parameter and its limit named).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;

using stasim::test::Output;

Output run(const std::string& args) { return stasim::test::run_stasim(args); }

TEST(DecodeCli, RunWorksWithNoArgumentAndPrintsTheReport) {
  Output o = run("run --layers 2");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("Qwen3-30B-A3B on trn3"));
  EXPECT_THAT(o.text, HasSubstr("dataflow cardan (hybrid(d=8,r=384,K=256))"));
  EXPECT_THAT(o.text, HasSubstr("TPOT "));
  EXPECT_THAT(o.text, HasSubstr("down schedule "));
  EXPECT_THAT(o.text, HasSubstr("critical path by phase"));
  EXPECT_THAT(o.text, testing::Not(HasSubstr("Copyright")));
}

TEST(DecodeCli, RunJsonHoldsTheDocumentedFields) {
  std::string path = testing::TempDir() + "run.json";
  Output o = run("run --layers 2 --quiet --down-schedule weight-psum --json " + path);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  for (const char* key : {"tpot_us", "layers", "moe_block_us", "critical_path", "engines", "dma", "storage",
                          "down_schedule", "sim"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["layers"], 2);
  EXPECT_EQ(j["down_schedule"]["stationary"], "weight");
  EXPECT_EQ(j["down_schedule"]["accumulate"], "psum");
  // 8/8 + 16 x 384/2048 + 16 (256 x 8 + 2048 x 384)/(128 x 2048 x 768) = 1 + 3 + 0.0627 = 4.0627.
  EXPECT_DOUBLE_EQ(j["storage"]["bits_per_weight"].get<double>(), 4.0627);
  // ISA instructions: each batched gather is 8 experts x 256 blocks x 96 columns / 128 partitions = 1536
  // elements per partition = 3 groups of 512, plus the uint8 index widening: 4; x 2 projections x 2 cores x 2 layers.
  EXPECT_EQ(j["engines"]["gpsimd"]["instructions"], 4 * 2 * 2 * 2);
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "dma", "collective"})
    EXPECT_TRUE(j["critical_path"]["by_engine_us"].contains(e)) << e;
  EXPECT_GT(j["dma"]["hbm_read_bytes"].get<double>(), 0);
  // Engine active per rank: active_us is the sum over the rank's two physical cores (what the study's profile
  // reports); the union is at most the sum and at least each core's figure.
  for (const char* e : {"tensor", "vector", "gpsimd"}) {
    const nlohmann::json& a = j["engines"][e];
    ASSERT_EQ(a["active_us_per_core"].size(), 2u) << e;
    const double c0 = a["active_us_per_core"][0].get<double>(), c1 = a["active_us_per_core"][1].get<double>();
    EXPECT_NEAR(a["active_us_sum"].get<double>(), c0 + c1, 0.0015) << e;  // each rounded to the ns
    EXPECT_EQ(a["active_us"], a["active_us_sum"]) << e;
    EXPECT_LE(a["active_us_union"].get<double>(), a["active_us_sum"].get<double>()) << e;
    EXPECT_GE(a["active_us_union"].get<double>(), std::max(c0, c1)) << e;
    EXPECT_GT(c0, 0) << e;
    EXPECT_GT(c1, 0) << e;
  }
  EXPECT_EQ(j["dma"]["active_us_per_core"].size(), 2u);
}

TEST(DecodeCli, CompareReportsSpeedupsAgainstTheFirstDataflow) {
  std::string path = testing::TempDir() + "compare.json";
  Output o = run("compare --layers 2 --dataflows dense,cardan --down-schedule weight-sbuf --json " + path);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("dense"));
  EXPECT_THAT(o.text, HasSubstr("cardan"));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["runs"][0]["speedup_vs_dense"].get<double>(), 1.0);
  double speedup = j["runs"][0]["tpot_us"].get<double>() / j["runs"][1]["tpot_us"].get<double>();
  EXPECT_NEAR(j["runs"][1]["speedup_vs_dense"].get<double>(), speedup, 1e-4);
}

TEST(DecodeCli, BadParametersNameTheParameterAndTheLimit) {
  struct Case {
    const char* args;
    const char* message;
  } cases[] = {
      {"run --d 7", "d = 7 does not divide hidden H = 2048"},
      {"run --K 512", "K = 512"},
      {"run --r 5000", "r = 5000"},
      {"run --dataflow cardn", "unknown dataflow 'cardn' (did you mean 'cardan'?)"},
      {"run --down-schedule sideways", "--down-schedule 'sideways'"},
      {"run --tp 5", "tp"},
      {"run --model no-such-model", "cannot open the file"},
      {"run --hw trn1", "pass --lnc to choose one"},
      {"run --set core.sbuf.bytes_per_partition=40000", "does not fit"},
      {"run --set model.moe.top_kk=2", "did you mean"},
      {"compare --dataflows dense,nope", "unknown dataflow 'nope'"},
  };
  for (const Case& c : cases) {
    Output o = run(std::string(c.args) + " --layers 1");
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(c.message)) << c.args;
  }
}

}  // namespace
