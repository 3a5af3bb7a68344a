// `stasim list`: the shipped configs (found as every command finds them: the data folder, STASIM_DATA_DIR) and
// the registered dataflows and kernels, each with its one-line description; an unknown category is bad input
// that names the categories.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/studies/catalog.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ListCli, ModelsAreTheShippedConfigsWithTheirShapes) {
  Output o = run_stasim("list models");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<std::string> lines = lines_of(o.text);
  ASSERT_EQ(lines.size(), 8u) << o.text;  // the eight files of configs/models
  // The name --model takes, then the model's own name and shape (layers, hidden H, routed experts and top-k).
  EXPECT_EQ(lines[6], "qwen3-30b-a3b            Qwen3-30B-A3B: 48 layers, hidden 2048, 128 experts (top-8)");
  EXPECT_EQ(lines[0], "deepseek-v2-lite         DeepSeek-V2-Lite: 27 layers, hidden 2048, 64 experts (top-6) + 2 shared");
}

TEST(ListCli, EveryCategoryListsItsNames) {
  auto names = [](const std::string& category) {
    Output o = run_stasim("list " + category);
    EXPECT_EQ(o.code, 0) << o.text;
    std::string out;
    for (const std::string& line : lines_of(o.text)) out += (out.empty() ? "" : ",") + line.substr(0, line.find(' '));
    return out;
  };
  EXPECT_EQ(names("hardware"), "trn1,trn2,trn3,trn3-calibrated");
  EXPECT_EQ(names("dataflows"), "cardan,dense,lr-only,vq-only,w4a8,w4a8-fused,xla");
  EXPECT_EQ(names("sweeps"), "qwen3-30b-a3b-dr-k256");
  EXPECT_EQ(names("schedules"), "cross_core_reduce,dma_sharing,expert_ffn_tile,psum_contention");
  EXPECT_EQ(names("kernels"),
            "dma-stream,matmul-block-free,matmul-fully-optimized,matmul-hoist-load,matmul-tiled,scalar-chain");
  // Descriptions: a hardware file's first comment sentence, a kernel's registry text with its hardware.
  Output hw = run_stasim("list hardware");
  EXPECT_THAT(hw.text, HasSubstr("trn1                     Trainium1 / NeuronCore-v2 (all documented cycle figures are NC-v2 measurements)\n"));
  Output kernels = run_stasim("list kernels");
  EXPECT_THAT(kernels.text, HasSubstr("(on trn1)"));
}

TEST(ListCli, NoCategoryListsAllSixUnderHeadings) {
  Output o = run_stasim("list");
  ASSERT_EQ(o.code, 0) << o.text;
  std::string headings;
  for (const std::string& line : lines_of(o.text))
    if (!line.empty() && line.back() == ':') headings += line;
  EXPECT_EQ(headings, "models:hardware:dataflows:sweeps:schedules:kernels:");
}

TEST(ListCli, AnUnknownCategoryNamesTheValidOnes) {
  Output o = run_stasim("list model");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.text, "error: unknown category 'model' (did you mean 'models'?); categories: models, hardware, dataflows, "
                    "sweeps, schedules, kernels\n");
}

TEST(ListCli, ConfigsComeFromTheDataFolderTheBinaryReads) {
  // An installed copy reads <prefix>/share/stasim/configs; STASIM_DATA_DIR points there the same way.
  const std::string dir = fresh_dir("list_data_", "folder");
  namespace fs = std::filesystem;
  fs::copy(std::string(STASIM_SOURCE_DIR) + "/configs", dir + "/configs", fs::copy_options::recursive);
  std::ofstream(dir + "/configs/sweeps/mine.yaml") << "# My own sweep. Two dataflows\nmodels: [qwen3-30b-a3b]\n";
  Output o = run_shell("STASIM_DATA_DIR=" + dir + " " + STASIM_BINARY + " list sweeps");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.substr(0, o.text.find('\n')), "mine                     My own sweep");
}

TEST(Catalog, TheDescriptionIsTheFirstSentenceOfTheLeadingComment) {
  EXPECT_EQ(leading_comment_sentence("# One tile. Then more\n# text\nops: []\n"), "One tile");
  EXPECT_EQ(leading_comment_sentence("# Joined over\n# two lines. Rest\n"), "Joined over two lines");
  EXPECT_EQ(leading_comment_sentence("name: x\n# not leading\n"), "");
  // 24 characters, over 20: cut at the last space within 20 - 3 = 17 characters (after "ijkl"), then "...".
  EXPECT_EQ(leading_comment_sentence("# abcd efgh ijkl mnop qrst\n", 20), "abcd efgh ijkl...");
}

}  // namespace
}  // namespace stasim::test
