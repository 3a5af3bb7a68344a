// include/stasim/route_blocks.hpp is what `stasim align`, `partition` and `replay` are a layer over: a program
// that fills the same request gets the table the command prints and the document its --json writes.
#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "stasim/io.hpp"
#include "stasim/route_blocks.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

TEST(RouteBlocksApi, AnAlignRequestGivesTheTableAndDocumentOfTheCommand) {
  AlignRequest request;
  request.generate = true;
  request.generator.tokens = 200;
  std::ostringstream table;
  const RouteAlignment aligned = report_alignment(request, table);

  EXPECT_EQ(run_stasim("align --generate --tokens 200").text, table.str());
  const Output doc = run_stasim("align --generate --tokens 200 --json - --quiet");
  ASSERT_EQ(doc.code, 0) << doc.text;
  EXPECT_EQ(alignment_json(aligned), nlohmann::json::parse(doc.text));
  EXPECT_TRUE(aligned.block_size_from_rule);  // no block size given: the reference rule's
}

TEST(RouteBlocksApi, APartitionRequestGivesTheTableAndDocumentOfTheCommand) {
  PartitionRequest request;
  request.config.blocks = 5;
  request.config.n = 512;
  request.config.k = 256;
  request.config.thread_n = 128;
  request.config.thread_k = 64;
  request.config.grid = 7;
  std::ostringstream table;
  const WorkPartition partition = report_partition(request, table);

  const std::string args = "partition --blocks 5 --n 512 --k 256 --thread-n 128 --thread-k 64 --grid 7";
  EXPECT_EQ(run_stasim(args).text, table.str());
  const Output doc = run_stasim(args + " --json - --quiet");
  ASSERT_EQ(doc.code, 0) << doc.text;
  EXPECT_EQ(partition_json(partition), nlohmann::json::parse(doc.text));
}

TEST(RouteBlocksApi, BadInputIsAnInputErrorNamingTheOption) {
  AlignRequest request;  // neither a routes file nor generate
  std::ostringstream table;
  EXPECT_THROW(report_alignment(request, table), InputError);
  ReplayConfig replay;
  replay.grid = 0;
  try {
    report_replay(replay, table);
    FAIL() << "a replay on grid 0 ran";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("--grid must be positive, got 0"));
  }
  EXPECT_TRUE(table.str().empty());
}

}  // namespace
}  // namespace stasim::test
