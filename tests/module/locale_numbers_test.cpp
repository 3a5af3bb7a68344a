// Numbers under a decimal-comma locale, as in a host program of the Python module that called
// setlocale(LC_ALL, "de_DE.UTF-8"): there strtod reads "2.5" as 2 and printf's %g writes "2,5". A --set value and a
// YAML scalar still read 2.5 and 2.4, the CLI still reads its options, and outputs (a sweep's CSV and JSON
// lines, run's report, a failed point's reason) print a decimal point (sim/core/number_text.hpp).
#include <gmock/gmock.h>

#include <fcntl.h>
#include <locale.h>
#include <sys/wait.h>
#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/config_reader.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/number_text.hpp"
#include "sim/studies/worker_pool.hpp"
#include "tools/cli.hpp"

namespace stasim::test {
namespace {

using testing::ContainsRegex;
using testing::HasSubstr;
using testing::Not;

std::string hw_path(const std::string& name) { return std::string(STASIM_SOURCE_DIR) + "/configs/hw/" + name + ".yaml"; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DecimalCommaLocale : public testing::Test {
 protected:
  void SetUp() override {
    // de_DE.UTF-8 is made by tools/setup --tests; any other installed locale with a decimal comma does as well.
    for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8", "it_IT.UTF-8",
                             "es_ES.UTF-8", "nl_NL.UTF-8", "ru_RU.UTF-8"}) {
      if (std::setlocale(LC_ALL, name) && std::string(std::localeconv()->decimal_point) == ",") return;
    }
    std::setlocale(LC_ALL, "C");
    GTEST_SKIP() << "no locale with a decimal comma is installed; tools/setup --tests makes one "
                    "(localedef -i de_DE -f UTF-8 de_DE.UTF-8)";
  }
  void TearDown() override { std::setlocale(LC_ALL, "C"); }
};

TEST_F(DecimalCommaLocale, SetValuesAndYamlScalarsReadWithADecimalPoint) {
  EXPECT_EQ(std::strtod("2.5", nullptr), 2.0);  // the process locale really stops at the '.'
  HardwareConfig set = load_hardware(hw_path("trn3"), {"core.dma.issue_ns=2.5"});
  EXPECT_EQ(set.dma.issue_ns, 2.5);
  std::string text = read_text(hw_path("trn3"));
  const std::string from = "issue_ns: 900";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "issue_ns: 2.4");
  HardwareConfig yaml = read_hardware(parse_yaml_text(text, "trn3-edited.yaml"), "trn3-edited.yaml");
  EXPECT_EQ(yaml.dma.issue_ns, 2.4);
  // A comma is no decimal point in a config either: an error naming the key, not 2.
  try {
    load_hardware(hw_path("trn3"), {"core.dma.issue_ns=2,5"});
    ADD_FAILURE() << "2,5 was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("issue_ns"));
  }
  EXPECT_EQ(text_to_double("2.4"), 2.4);
  EXPECT_EQ(format_double("%.3f", 2.5), "2.500");
  EXPECT_EQ(format_double("%g", 0.25), "0.25");
}

std::string hang_or_echo(const std::string& input) {
  if (input == "hang")
    for (;;) ::pause();
  return input;
}

TEST_F(DecimalCommaLocale, APointsTimeLimitReasonPrintsADecimalPoint) {
  WorkerPool pool(hang_or_echo, 1, 0.25);
  std::vector<TaskOutcome> out = pool.run({"hang"});
  EXPECT_EQ(out[0].failure, "ran past the time limit of 0.25 s and was stopped");
}

// `stasim ARGS...` in a forked copy of this process (the locale set), its stdout to `stdout_path`; the exit code.
int stasim_here(const std::vector<std::string>& args, const std::string& stdout_path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    std::vector<std::string> words{"stasim"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int code = cli::run(static_cast<int>(words.size()), argv.data());
    std::fflush(stdout);
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(DecimalCommaLocale, TheCliReadsOptionsAndWritesOutputsWithADecimalPoint) {
  const std::string folder =
      (std::filesystem::temp_directory_path() / ("stasim-locale-" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(folder);
  // --point-time-limit is a double CLI11 reads; --set a config value.
  const std::string csv = folder + "/grid.csv", jsonl = folder + "/grid.jsonl";
  for (const std::string& out : {csv, jsonl}) {
    ASSERT_EQ(stasim_here({"sweep", "--dataflows", "cardan", "--layers", "1", "--jobs", "1", "--set",
                           "core.dma.issue_ns=2.5", "--point-time-limit", "600.5", "--out", out},
                          folder + "/sweep.txt"),
              0)
        << read_text(folder + "/sweep.txt");
  }
  // One ok point; its TPOT (microseconds, three decimals) with a decimal point in both files.
  EXPECT_THAT(read_text(csv), ContainsRegex(",ok,"));
  EXPECT_THAT(read_text(csv), ContainsRegex(",[0-9]+\\.[0-9]+,"));
  EXPECT_THAT(read_text(jsonl), ContainsRegex("\"tpot_us\":[0-9]+\\.[0-9]+"));
  // run's report: "TPOT 123.456 us", not "123,456".
  ASSERT_EQ(stasim_here({"run", "--layers", "1", "--set", "core.dma.issue_ns=2.5"}, folder + "/run.txt"), 0)
      << read_text(folder + "/run.txt");
  EXPECT_THAT(read_text(folder + "/run.txt"), ContainsRegex("TPOT [0-9]+\\.[0-9]{3} us"));
  EXPECT_THAT(read_text(folder + "/run.txt"), Not(ContainsRegex("TPOT [0-9]+,[0-9]")));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace stasim::test
