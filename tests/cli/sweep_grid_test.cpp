// Sweep grids without running anything: list and range parsing, the shipped sweep YAML's point count, the
// order and keys of expanded points, and bad sweep files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/input_error.hpp"
#include "sim/studies/sweep_grid.hpp"

namespace stasim {
namespace {

using testing::HasSubstr;

bool dense_only(const std::string& dataflow) { return dataflow == "dense"; }

TEST(SweepGrid, ListsAndInclusiveRanges) {
  EXPECT_EQ(parse_int_list("2,4,8", "--d"), (std::vector<std::int64_t>{2, 4, 8}));
  // 0, 64, ..., 512: (512 - 0) / 64 + 1 = 9 values, the stop included.
  EXPECT_EQ(parse_int_list("0:512:64", "--r").size(), 9u);
  EXPECT_EQ(parse_int_list("0:100:64", "--r"), (std::vector<std::int64_t>{0, 64}));  // 128 > 100
  EXPECT_EQ(parse_int_list("1,8:24:8", "--K"), (std::vector<std::int64_t>{1, 8, 16, 24}));
}

TEST(SweepGrid, UnparsableRangesNameTheOption) {
  auto message = [](const std::string& text) {
    try {
      parse_int_list(text, "--r");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("0:512"), HasSubstr("--r '0:512': '0:512' is neither an integer nor start:stop:step"));
  EXPECT_THAT(message("512:0:64"), HasSubstr("stop < start"));
  EXPECT_THAT(message("0:512:0"), HasSubstr("must be positive"));
  EXPECT_THAT(message(""), HasSubstr("no value"));
  EXPECT_THAT(message("1,,2"), HasSubstr("'' is neither"));
}

TEST(SweepGrid, ShippedQwenSweepHas53Points) {
  SweepSpec spec = load_sweep(std::string(STASIM_SOURCE_DIR) + "/configs/sweeps/qwen3-30b-a3b-dr-k256.yaml");
  std::vector<SweepPoint> points = expand(spec, dense_only);
  // dense once + cardan over d {2, 4, 8, 16} x r 0:768:64 (13 values) x K {256}: 1 + 4 x 13 = 53.
  ASSERT_EQ(points.size(), 53u);
  EXPECT_EQ(points[0].dataflow, "dense");
  EXPECT_FALSE(points[0].uses_drk());
  EXPECT_EQ(points[1].d, 2);
  EXPECT_EQ(points[2].r, 64);        // r varies fastest
  EXPECT_EQ(points[52].d, 16);
  EXPECT_EQ(points[52].r, 768);
  EXPECT_EQ(points[52].index, 52u);
}

TEST(SweepGrid, VaryMultipliesEveryCombination) {
  SweepSpec spec;
  spec.d = {4, 8};
  spec.vary.push_back(parse_vary("core.dma.engines=8,16"));
  spec.vary.push_back(parse_vary("core.dma.issue_ns=650,1300,2600"));
  std::vector<SweepPoint> points = expand(spec, dense_only);
  // 2 x 3 vary combinations, each with 1 dense + 2 cardan points: 6 x 3 = 18.
  ASSERT_EQ(points.size(), 18u);
  EXPECT_EQ(points[0].vary_text(), "core.dma.engines=8;core.dma.issue_ns=650");
  EXPECT_EQ(points[3].vary_text(), "core.dma.engines=8;core.dma.issue_ns=1300");
  EXPECT_EQ(points[0].group(), points[1].group());   // dense and cardan of one combination compare
  EXPECT_NE(points[0].group(), points[3].group());
}

// Each dataflow gets one point per value of the (d, r, K) it reads: the registry says dense, xla and w4a8 read
// none, vq-only d and K, lr-only r, cardan all three.
TEST(SweepGrid, ADataflowRunsOncePerParameterItReads) {
  DataflowRegistry registry;
  register_builtin(registry);
  SweepSpec spec;
  spec.dataflows = {"dense", "vq-only", "lr-only", "cardan", "xla", "w4a8"};
  spec.d = {4, 8};
  spec.r = {0, 256, 384};
  spec.K = {64, 256};
  std::vector<SweepPoint> points = expand(spec, registry);
  // dense 1 + vq-only 2 d x 2 K + lr-only 3 r + cardan 2 x 3 x 2 + xla 1 + w4a8 1 = 1 + 4 + 3 + 12 + 1 + 1 = 22.
  ASSERT_EQ(points.size(), 22u);
  EXPECT_EQ(points[0].key(), "model=qwen3-30b-a3b|hw=trn3-calibrated|batch=1|layers=0|down=weight-sbuf|vary=|dataflow=dense|drk=-");
  EXPECT_EQ(points[1].dataflow, "vq-only");
  EXPECT_THAT(points[1].key(), testing::EndsWith("|dataflow=vq-only|drk=4/-/64"));
  EXPECT_THAT(points[4].key(), testing::EndsWith("|dataflow=vq-only|drk=8/-/256"));
  EXPECT_THAT(points[5].key(), testing::EndsWith("|dataflow=lr-only|drk=-/0/-"));
  EXPECT_THAT(points[7].key(), testing::EndsWith("|dataflow=lr-only|drk=-/384/-"));
  EXPECT_THAT(points[8].key(), testing::EndsWith("|dataflow=cardan|drk=4/0/64"));
  EXPECT_THAT(points[20].key(), testing::EndsWith("|dataflow=xla|drk=-"));
  EXPECT_THAT(points[21].key(), testing::EndsWith("|dataflow=w4a8|drk=-"));
  // The point's request carries the base's options and its own inputs.
  spec.base.tp = 2;
  spec.base.sets = {"core.dma.issue_ns=900"};
  spec.vary.push_back(parse_vary("option.reuse=false,true"));
  spec.vary.push_back(parse_vary("core.dma.issue_ns=650"));
  points = expand(spec, registry);
  ASSERT_EQ(points.size(), 44u);  // 22 x 2 reuse values
  EXPECT_EQ(points[0].vary_text(), "option.reuse=0;core.dma.issue_ns=650");
  RunRequest req = points[9].request();
  EXPECT_EQ(req.dataflow, "cardan");
  EXPECT_EQ(req.tp, 2);
  EXPECT_TRUE(req.no_reuse);
  // The base's --set first, the axis after it: the axis's value wins for its key.
  EXPECT_EQ(req.sets, (std::vector<std::string>{"core.dma.issue_ns=900", "core.dma.issue_ns=650"}));
  EXPECT_FALSE(points[22].request().no_reuse);
}

TEST(SweepGrid, UnknownSweepKeyGetsADidYouMean) {
  std::string path = testing::TempDir() + "bad_sweep.yaml";
  std::ofstream(path) << "models: [qwen3-30b-a3b]\ndataflow: [cardan]\n";
  try {
    load_sweep(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(":2:"));
    EXPECT_THAT(e.what(), HasSubstr("dataflow: unknown key (did you mean 'dataflows'?)"));
  }
}

}  // namespace
}  // namespace stasim
