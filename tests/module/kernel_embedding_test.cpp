// The public kernel header (include/stasim/kernel.hpp) is enough to write and run kernels: a shipped kernel
// run through it gives the document `stasim kernel --json` writes, and a program written against it simulates.
#include <gmock/gmock.h>

#include <fstream>

#include "stasim/kernel.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

TEST(KernelEmbedding, AShippedKernelThroughThePublicHeaderGivesTheCliDocument) {
  KernelRun run = run_shipped_kernel("matmul-hoist-load", {{"M", 256}}, "trn1");
  nlohmann::json doc = kernel_json(*run.program, run.result);
  const std::string path = testing::TempDir() + "embedding_kernel.json";
  Output cli = run_stasim("kernel matmul-hoist-load --hw trn1 --arg M=256 --quiet --json " + path);
  ASSERT_EQ(cli.code, 0) << cli.text;
  nlohmann::json from_cli = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(from_cli.erase("provenance"), 1u);
  EXPECT_EQ(doc, from_cli);
  EXPECT_THROW(run_shipped_kernel("matmul-hoist-load", {{"X", 1}}), InputError);
}

TEST(KernelEmbedding, AProgramWrittenAgainstTheHeaderSimulates) {
  KernelProgram k(load_hardware_config("trn2"), "copy");
  const HbmTensor x = k.hbm("x", 128, 256, Dtype::bf16), y = k.hbm("y", 128, 256, Dtype::bf16);
  const TileBlock t = k.sbuf("t", 128, 256, Dtype::bf16);
  k.load(t.all(), slice(x, 0, 128, 0, 256), DmaIssuer::sync);
  k.store(slice(y, 0, 128, 0, 256), t.all(), DmaIssuer::act);
  const SimResult r = k.simulate();
  // trn2: each [128, 512 B] transfer is bound by its 128 descriptors x 3.7 ns = 473.6 ns after the 900 ns issue;
  // the store reads the loaded tile 290 ns after the load: 2 x 1373.6 + 290 = 3037.2 ns.
  EXPECT_EQ(r.total_ps, 3037200);
  EXPECT_EQ(kernel_json(k, r)["ops"].size(), 2u);
}

}  // namespace
}  // namespace stasim::test
