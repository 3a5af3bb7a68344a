// The conventions every command shares (README "Conventions"): unknown commands, options and config names get a
// did-you-mean and the list of what exists (exit 2); `--json -` leaves nothing but JSON on stdout; -q/-v on every
// command with one meaning; old option spellings still work; --help states the true defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;
using stasim::test::run_stasim;
using stasim::test::run_stasim_split;
using testing::HasSubstr;
using testing::Not;

std::string tmp(const std::string& name) { return testing::TempDir() + "conventions_" + name; }

const std::vector<std::string> kCommands = {"run",      "compare", "schedule", "bench",     "align",
                                            "partition", "replay",  "goldens",  "sweep",     "merge",
                                            "calibrate", "validate", "export-weights", "represent"};

TEST(UnknownCommand, SuggestsTheNearestAndListsAll) {
  Output o = run_stasim("rn");
  EXPECT_EQ(o.code, 2) << o.text;
  // "rn" is one insertion from "run".
  EXPECT_THAT(o.text, HasSubstr("error: unknown command 'rn' (did you mean 'run'?); commands: run, compare, schedule, "));
  EXPECT_THAT(o.text, HasSubstr("represent, list (stasim --help says what each does)"));
  EXPECT_THAT(o.text, Not(HasSubstr("A subcommand is required")));
  // A swap of two neighbouring letters is one edit too.
  o = run_stasim("comapre");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("unknown command 'comapre' (did you mean 'compare'?)"));
  // Nothing close: the list alone.
  o = run_stasim("frobnicate");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("error: unknown command 'frobnicate'; commands: run, "));
}

TEST(UnknownCommand, NoCommandListsThem) {
  Output o = run_stasim("");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: name a command; commands: run, compare, "));
  // --help and --version still need none.
  EXPECT_EQ(run_stasim("--help").code, 0);
  EXPECT_EQ(run_stasim("--version").code, 0);
}

TEST(UnknownOption, SuggestsTheNearestOptionOfThatCommand) {
  Output o = run_stasim("run --modle qwen3-30b-a3b");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: unknown option '--modle' for stasim run (did you mean '--model'?) "
                                "(stasim run --help lists the options)"));
  // Its value is not reported as a second problem.
  EXPECT_THAT(o.text, Not(HasSubstr("qwen3-30b-a3b'")));
  // run takes one --dataflow; compare's --dataflows is one letter away.
  o = run_stasim("run --dataflows dense");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("unknown option '--dataflows' for stasim run (did you mean '--dataflow'?)"));
  o = run_stasim("sweep --out x.csv --jbos 2");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("unknown option '--jbos' for stasim sweep (did you mean '--jobs'?)"));
  // A stray word is named as such.
  o = run_stasim("run extra");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("error: unexpected argument 'extra' for stasim run"));
}

TEST(UnknownConfigName, ListsTheShippedNamesWithADidYouMean) {
  Output o = run_stasim("run --model qwen3");
  EXPECT_EQ(o.code, 2) << o.text;
  // "qwen3" begins qwen3-30b-a3b (the first shipped name it begins).
  EXPECT_THAT(o.text, HasSubstr("error: --model: no model 'qwen3' (did you mean 'qwen3-30b-a3b'?); shipped models: "
                                "deepseek-v2-lite, deepseek-v3, gemma-4-26b-a4b, mixtral-8x7b, "));
  EXPECT_THAT(o.text, HasSubstr("qwen3-coder-30b-a3b (or give the path of a YAML file)"));
  EXPECT_THAT(o.text, Not(HasSubstr("cannot open")));
  o = run_stasim("compare --hw trn3-calibratd");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("error: --hw: no hardware 'trn3-calibratd' (did you mean 'trn3-calibrated'?); "
                                "shipped hardware: trn1, trn2, trn3, trn3-calibrated"));
  for (const std::string command : {"schedule -q --hw trn33", "validate -q --hw trn33"}) {
    o = run_stasim(command);
    EXPECT_EQ(o.code, 2) << command << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr("--hw: no hardware 'trn33' (did you mean 'trn3'?)")) << command;
  }
  o = run_stasim("represent --model mixtral --weights synthetic --d 8 --r 16 --K 16");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--model: no model 'mixtral' (did you mean 'mixtral-8x7b'?)"));
}

TEST(JsonToStdout, IsNothingButJson) {
  const std::string errors = tmp("stderr.txt");
  for (const std::string& command :
       {std::string("run --layers 1 --json -"), std::string("compare --layers 1 --json -"),
        std::string("schedule --json -"), std::string("align --generate --json -")}) {
    stasim::test::SplitOutput o = run_stasim_split(command, errors);
    ASSERT_EQ(o.code, 0) << command << "\n" << o.errors;
    // The whole of stdout parses as one JSON document: no summary table before or after it.
    nlohmann::json doc;
    EXPECT_NO_THROW(doc = nlohmann::json::parse(o.text)) << command << "\n" << o.text.substr(0, 400);
    EXPECT_TRUE(doc.is_object()) << command;
    EXPECT_EQ(o.errors, "") << command;
  }
}

TEST(JsonToStdout, AnyOutputMayBeStdoutButOnlyOne) {
  // --trace - is the trace on stdout (it used to write a file named "-").
  stasim::test::SplitOutput o = run_stasim_split("run --layers 1 --trace -", tmp("trace_err.txt"));
  ASSERT_EQ(o.code, 0) << o.errors;
  nlohmann::json doc;
  EXPECT_NO_THROW(doc = nlohmann::json::parse(o.text)) << o.text.substr(0, 400);
  EXPECT_TRUE(doc.contains("traceEvents"));
  // Two outputs on stdout would interleave: refused before any simulation.
  Output both = run_stasim("run --layers 1 --json - --trace -");
  EXPECT_EQ(both.code, 2) << both.text;
  EXPECT_THAT(both.text, HasSubstr("error: --trace -: --json already writes to stdout ('-'); name a file for one"));
}

TEST(JsonToStdout, StdoutIsNeverAFileNamedDash) {
  // Run from an empty folder: nothing may appear in it (these used to write "-.meta.json", "-.dense", "-.cardan").
  const std::filesystem::path dir = tmp("dash_dir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string in_dir = "cd " + dir.string() + " && " + std::string(STASIM_BINARY) + " ";
  // run: the op table on stdout, without its provenance sidecar (a sidecar needs a file to sit next to).
  Output ops = stasim::test::run_shell(in_dir + "run --layers 1 --quiet --ops - 2>/dev/null");
  ASSERT_EQ(ops.code, 0) << ops.text;
  EXPECT_EQ(ops.text.rfind("op,core,queue,engine,", 0), 0u) << ops.text.substr(0, 200);
  // compare of one dataflow: its table on stdout, untagged.
  Output one = stasim::test::run_shell(in_dir + "compare --dataflows cardan --layers 1 --quiet --ops - 2>/dev/null");
  ASSERT_EQ(one.code, 0) << one.text;
  EXPECT_EQ(one.text.rfind("op,core,queue,engine,", 0), 0u) << one.text.substr(0, 200);
  // compare of two dataflows writes one per dataflow: stdout cannot take both.
  Output two = stasim::test::run_shell(in_dir + "compare --layers 1 --quiet --trace -");
  EXPECT_EQ(two.code, 2) << two.text;
  EXPECT_THAT(two.text, HasSubstr("error: --trace -: compare writes one per dataflow (FILE.dense, FILE.cardan, ...) and "
                                  "stdout takes only one: give a file name, or compare a single dataflow"));
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << std::filesystem::directory_iterator(dir)->path();
}

TEST(QuietAndVerbose, EveryCommandTakesBoth) {
  for (const std::string& command : kCommands) {
    Output o = run_stasim(command + " --help");
    EXPECT_EQ(o.code, 0) << command;
    EXPECT_THAT(o.text, HasSubstr("-q,--quiet")) << command;
    EXPECT_THAT(o.text, HasSubstr("-v,--verbose")) << command;
  }
}

TEST(QuietAndVerbose, QuietPrintsNothingButStillWrites) {
  const std::string json = tmp("quiet.json");
  std::filesystem::remove(json);
  Output o = run_stasim("run --layers 1 -q --json " + json);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text, "");
  EXPECT_TRUE(std::filesystem::exists(json));
  // Commands without a summary switch of their own are silenced the same way.
  o = run_stasim("align --generate -q");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text, "");
  o = run_stasim("partition --blocks 50 --n 1536 --k 2048 --thread-n 128 --thread-k 64 --grid 246 -q");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text, "");
  // Errors still come through.
  o = run_stasim("run -q --model qwen3");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("error: --model: no model 'qwen3'"));
  // Asking for both is a contradiction, refused.
  o = run_stasim("run -q -v");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.text, HasSubstr("--quiet excludes --verbose"));
}

TEST(QuietAndVerbose, VerboseSaysWhatWasReadAndWritten) {
  const std::string json = tmp("verbose.json");
  stasim::test::SplitOutput o = run_stasim_split("run --layers 1 -v --json " + json, tmp("verbose_err.txt"));
  ASSERT_EQ(o.code, 0) << o.errors;
  EXPECT_THAT(o.errors, HasSubstr("stasim run: configs folder "));
  EXPECT_THAT(o.errors, HasSubstr("stasim run: --model qwen3-30b-a3b -> "));
  EXPECT_THAT(o.errors, HasSubstr("configs/models/qwen3-30b-a3b.yaml\n"));
  EXPECT_THAT(o.errors, HasSubstr("stasim run: --hw trn3-calibrated -> "));
  EXPECT_THAT(o.errors, HasSubstr("stasim run: wrote --json " + json + "\n"));
  EXPECT_THAT(o.errors, HasSubstr("stasim run: done in "));
  // The summary itself is unchanged on stdout.
  EXPECT_THAT(o.text, HasSubstr("critical path"));
}

TEST(NamingScheme, OldSpellingsStillWork) {
  // calibrate --output is now --out; the old spelling is taken with a note (here failing on the missing folder,
  // which names the option by its new spelling).
  Output o = run_stasim("calibrate --output /nonexistent_folder/fit.yaml");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("note: calibrate --output is the old spelling of --out (still accepted)"));
  // Under -q only the error.
  o = run_stasim("calibrate -q --output /nonexistent_folder/fit.yaml");
  EXPECT_EQ(o.text, "error: --out /nonexistent_folder/fit.yaml: no folder '/nonexistent_folder' to write it in\n");
  EXPECT_THAT(o.text, HasSubstr("error: --out /nonexistent_folder/fit.yaml: no folder '/nonexistent_folder'"));
  o = run_stasim("calibrate -q --output=/nonexistent_folder/fit.yaml");
  EXPECT_THAT(o.text, HasSubstr("error: --out /nonexistent_folder/fit.yaml: no folder"));
  // compare takes --dataflow as well as --dataflows, silently, recorded under the scheme's name.
  const std::string json = tmp("compare.json");
  o = run_stasim("compare --layers 1 -q --dataflow dense,xla --json " + json);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text, "");
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["dataflow"], "xla");
  EXPECT_EQ(doc["provenance"]["options"]["dataflows"], "dense,xla");
}

TEST(NamingScheme, OneLayerDefaultForLayerOptions) {
  // export-weights and represent both default --layer to the first MoE layer (-1), and refuse below -1.
  for (const std::string command : {"export-weights", "represent"}) {
    Output o = run_stasim(command + " --help");
    EXPECT_THAT(o.text, HasSubstr("--layer INT=-1")) << command;
    EXPECT_THAT(o.text, HasSubstr("(default: the first MoE layer)")) << command;
  }
  Output o = run_stasim("represent --weights synthetic --d 8 --r 16 --K 16 --layer -2");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--layer -2: a layer index is 0 or more (-1: the first MoE layer)"));
}

TEST(Help, StatesTheTrueDefaults) {
  Output o = run_stasim("run --help");
  // The deployment options default to the model's (or hardware's) value, not to the 0 that marks "not given".
  for (const char* option : {"--batch INT ", "--tp INT ", "--lnc INT ", "--context INT "})
    EXPECT_THAT(o.text, HasSubstr(option)) << option;
  for (const char* option : {"--batch INT=0", "--tp INT=0", "--lnc INT=0", "--context INT=0"})
    EXPECT_THAT(o.text, Not(HasSubstr(option))) << option;
  EXPECT_THAT(o.text, HasSubstr("--model TEXT=qwen3-30b-a3b"));
  EXPECT_THAT(o.text, HasSubstr("--hw TEXT=trn3-calibrated"));
  o = run_stasim("schedule --help");
  EXPECT_THAT(o.text, HasSubstr("--hw TEXT=trn3 "));
  // Required values have no default to show (they start at 0 in the program, which is no default).
  o = run_stasim("partition --help");
  EXPECT_THAT(o.text, HasSubstr("--blocks INT REQUIRED"));
  EXPECT_THAT(o.text, Not(HasSubstr("INT=0 REQUIRED")));
  o = run_stasim("represent --help");
  EXPECT_THAT(o.text, HasSubstr("--d INT REQUIRED"));
  EXPECT_THAT(o.text, Not(HasSubstr("INT=0 REQUIRED")));
}

}  // namespace
