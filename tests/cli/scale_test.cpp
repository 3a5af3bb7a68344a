// Scale: a 5,000,000-op synthetic schedule (the benchmark's random DAG over two cores and every engine kind)
// runs to completion within the memory target of the core: at most 400 bytes per op of peak RSS, i.e. at most
// 5,000,000 × 400 B = 2.0 GB for the whole process (graph, validation, kernel, per-op timings, summary).
// Memory, unlike time, does not depend on how loaded the machine is, so this is a test; the speed figures the
// same command prints are a benchmark and are not checked here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;
using stasim::test::run_stasim;
using testing::HasSubstr;

TEST(Scale, FiveMillionOpScheduleFinishesWithinFourHundredBytesPerOp) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory and redzones inflate RSS; the target is for the normal build";
#endif
  Output o = run_stasim("bench --ops 5000000 --hw " STASIM_SOURCE_DIR "/configs/hw/trn3.yaml");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("random DAG, 5000000 ops on 2 cores"));
  // A run that ends with ops not executed stops with a deadlock error (exit 1), so exit 0 means all 5,000,000
  // ops finished and the simulated time is reported.
  EXPECT_THAT(o.text, HasSubstr("simulated time"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.text, m, std::regex(R"(= (\d+) bytes per op)"))) << o.text;
  EXPECT_LE(std::stoi(m[1].str()), 400) << o.text;
}

}  // namespace
