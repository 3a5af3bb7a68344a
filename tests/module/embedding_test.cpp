// The public header (include/stasim/stasim.hpp) is enough to embed the simulator: a program that includes only
// it builds a request, runs it, and gets the document `stasim run --json` writes for the same options.
#include <gmock/gmock.h>

#include <fstream>

#include "stasim/stasim.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

TEST(Embedding, ARequestRunThroughThePublicHeaderGivesTheCliDocument) {
  Simulator sim;
  RunRequest request;  // the shipped default: Qwen3-30B-A3B, cardan (8, 384, 256), trn3-calibrated, auto
  request.layers = 2;
  DecodeRun run = sim.run(request);
  nlohmann::json doc = Simulator::json(run);

  const std::string path = testing::TempDir() + "embedding_run.json";
  Output cli = run_stasim("run --layers 2 --quiet --json " + path);
  ASSERT_EQ(cli.code, 0) << cli.text;
  nlohmann::json from_cli = nlohmann::json::parse(std::ifstream(path));
  // The CLI adds how it was run (its command line and options); the rest is the library's document.
  EXPECT_EQ(from_cli.erase("provenance"), 1u);
  EXPECT_EQ(doc, from_cli);
  EXPECT_EQ(doc["dataflow"], "cardan");
  EXPECT_GT(run.result.total_ps, 0);
}

TEST(Embedding, BadInputThrowsInputErrorNamingTheDataflow) {
  Simulator sim;
  RunRequest request;
  request.dataflow = "cardn";
  try {
    sim.run(request);
    FAIL() << "an unknown dataflow ran";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("cardn"));
  }
}

}  // namespace
}  // namespace stasim::test
