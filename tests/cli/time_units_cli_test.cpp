// One time unit in the text of `run` and `schedule` (and `kernel`, which prints schedule's summary): µs, written
// "us", with three decimals (nanosecond resolution), in every line that gives a time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

// Every simulated time of `text` is in µs: each figure followed by "us" has three decimals, and no line speaks of
// ns or cycles (the wall time of the simulation, "in 11.3 ms", is not a simulated time).
void expect_microseconds(const std::string& text) {
  const std::regex figure("([0-9][0-9.]*) us\\b");
  int figures = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), figure), end; it != end; ++it, ++figures)
    EXPECT_TRUE(std::regex_match((*it)[1].str(), std::regex("[0-9]+\\.[0-9]{3}"))) << (*it)[0].str();
  EXPECT_GT(figures, 0) << text;
  EXPECT_EQ(text.find(" ns"), std::string::npos) << text;
  EXPECT_EQ(text.find("_ns"), std::string::npos) << text;
  EXPECT_EQ(text.find("cycles"), std::string::npos) << text;
}

TEST(TimeUnits, RunAndSchedulePrintMicrosecondsWithThreeDecimals) {
  Output run = run_stasim("run --layers 1 --down-schedule weight-sbuf");
  ASSERT_EQ(run.code, 0) << run.text;
  expect_microseconds(run.text);
  EXPECT_THAT(run.text, HasSubstr("TPOT 584.177 us ("));
  EXPECT_THAT(run.text, HasSubstr("engine        active_us  busy_%  instructions  critical_us\n"));

  Output schedule = run_stasim("schedule");
  ASSERT_EQ(schedule.code, 0) << schedule.text;
  expect_microseconds(schedule.text);
  EXPECT_THAT(schedule.text, HasSubstr("total 5.238 us\n"));
  EXPECT_THAT(schedule.text, HasSubstr("engine        active_us   busy_%   instructions  critical_us\n"));
  EXPECT_THAT(schedule.text, HasSubstr("critical path by DMA queue (us): c0.dma0 2.822\n"));
}

}  // namespace
}  // namespace stasim::test
