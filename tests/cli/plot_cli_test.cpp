// tools/plot on real stasim outputs: every kind of plot writes a PNG and says what it drew (panels, dataflows,
// tracks or series), the sweep plot facets by model and batch instead of joining groups into one line, the
// timeline reads a gzipped trace, and bad input exits 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;
using testing::HasSubstr;

std::string tmp(const std::string& name) { return testing::TempDir() + "plot_" + name; }

Output plot(const std::string& args) {
  // tools/plot through the same capture as the binary: a shell command with its output.
  return stasim::test::run_shell(std::string(STASIM_SOURCE_DIR) + "/tools/plot " + args);
}

bool png(const std::string& path) { return std::filesystem::exists(path) && std::filesystem::file_size(path) > 1000; }

TEST(Plot, SweepFacetsByModelAndBatch) {
  Output o = stasim::test::run_stasim("sweep --models qwen3-30b-a3b,olmoe-1b-7b --batch 1,2 --dataflows dense,cardan "
                                      "--d 8 --r 0,128 --layers 1 --jobs 2 --force --out " + tmp("grid.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  o = plot("sweep " + tmp("grid.csv") + " --out " + tmp("sweep.png"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(png(tmp("sweep.png")));
  // 2 models x 2 batch sizes = 4 panels, each titled by what differs between panels.
  EXPECT_THAT(o.text, HasSubstr("(4 panels: olmoe-1b-7b, batch 1; olmoe-1b-7b, batch 2; qwen3-30b-a3b, batch 1; "
                                "qwen3-30b-a3b, batch 2)"));
}

TEST(Plot, EnginesTimelineFromGzipAndTheirErrors) {
  Output o = stasim::test::run_stasim("compare --layers 2 --quiet --down-schedule weight-sbuf --json " + tmp("cmp.json") +
                                      " --trace " + tmp("t.json.gz"));
  ASSERT_EQ(o.code, 0) << o.text;
  o = plot("engines " + tmp("cmp.json") + " --out " + tmp("engines.png"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(png(tmp("engines.png")));
  EXPECT_THAT(o.text, HasSubstr("(2 dataflows: dense; cardan)"));
  o = plot("timeline " + tmp("t.cardan.json.gz") + " --layer 1 --out " + tmp("timeline.png"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(png(tmp("timeline.png")));
  EXPECT_THAT(o.text, HasSubstr("core 0: tensor"));
  EXPECT_THAT(o.text, HasSubstr("gpsimd"));
  // Layer 5 is not in a 2-layer trace; a sweep CSV is not a compare JSON.
  o = plot("timeline " + tmp("t.cardan.json.gz") + " --layer 5 --out " + tmp("none.png"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no op of layer 5"));
  o = plot("engines " + tmp("t.cardan.json.gz") + " --out " + tmp("none.png"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("expected the JSON of stasim run or compare"));
}

TEST(Plot, QualityPlotsFromASweepWithNmse) {
  Output o = stasim::test::run_stasim("sweep --dataflows dense,cardan,lr-only --d 8 --r 32,64 --layers 1 --jobs 2 "
                                      "--weights synthetic --force --out " + tmp("quality.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  o = plot("quality-latency " + tmp("quality.csv") + " --out " + tmp("q.png"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(png(tmp("q.png")));
  EXPECT_THAT(o.text, HasSubstr("(2 series: cardan; lr-only)"));  // dense is the reference line, not a series
  o = plot("quality " + tmp("quality.csv") + " --out " + tmp("nmse.png"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(png(tmp("nmse.png")));
}

TEST(Plot, FormatsResolutionAndInputThatIsNotWhatItReads) {
  Output o = stasim::test::run_stasim("compare --layers 1 --quiet --down-schedule weight-sbuf --json " + tmp("fmt.json"));
  ASSERT_EQ(o.code, 0) << o.text;
  // PDF and SVG follow the extension; a PNG at 300 dpi is larger than at the default 100.
  o = plot("engines " + tmp("fmt.json") + " --out " + tmp("engines.pdf"));
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(std::filesystem::exists(tmp("engines.pdf")));
  o = plot("engines " + tmp("fmt.json") + " --out " + tmp("engines.svg"));
  ASSERT_EQ(o.code, 0) << o.text;
  ASSERT_EQ(plot("engines " + tmp("fmt.json") + " --out " + tmp("e100.png")).code, 0);
  ASSERT_EQ(plot("engines " + tmp("fmt.json") + " --dpi 300 --out " + tmp("e300.png")).code, 0);
  EXPECT_GT(std::filesystem::file_size(tmp("e300.png")), 2 * std::filesystem::file_size(tmp("e100.png")));
  // An extension matplotlib would guess at, a bad resolution, a JSON that is not a run: exit 2, no traceback.
  o = plot("engines " + tmp("fmt.json") + " --out " + tmp("engines.parquet"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("the file's extension names its format: .png, .pdf or .svg"));
  o = plot("engines " + tmp("fmt.json") + " --dpi 0 --out " + tmp("x.png"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--dpi 0: must be between 10 and 2400"));
  stasim::test::run_shell("echo '{\"dataflows\": [{\"nothing\": 1}]}' > " + tmp("odd.json"));
  o = plot("engines " + tmp("odd.json") + " --out " + tmp("x.png"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, testing::Not(HasSubstr("Traceback")));
}

}  // namespace
