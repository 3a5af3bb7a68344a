// `stasim sweep` with the request options of `run`: --set, --tp/--context, --routing-seed and
// --fuse-projections give every point what `run` gives the same request; run's switches are axes
// (--vary option.reuse=0,1) with a column per --vary key; the summary names the down schedule; bad axes are
// bad input (exit 2). One-layer grids of the shipped models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/studies/sweep_table.hpp"
#include "tests/cli/cli_runner.hpp"

namespace {

using stasim::test::run_stasim;
using testing::HasSubstr;

std::string tmp(const std::string& name) { return testing::TempDir() + "sweep_options_" + name; }

using stasim::test::slurp;

// TPOT of `stasim run ARGS --json` (one layer, the sweep's weight-sbuf schedule).
double run_tpot(const std::string& args) {
  // One file per test: ctest runs the tests of this file in parallel processes.
  const std::string json = tmp(std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".run.json");
  stasim::test::Output o = run_stasim("run --quiet --layers 1 --down-schedule weight-sbuf " + args + " --json " + json);
  EXPECT_EQ(o.code, 0) << args << "\n" << o.text;
  std::ifstream in(json);
  return nlohmann::json::parse(in)["tpot_us"].get<double>();
}

TEST(SweepOptionsCli, ASweepFileHoldsTheRequestOptionsTooAndTheCommandLineGoesOnTop) {
  // The same request from a sweep YAML as from the command line: tp, context, set, routing_seed and a switch.
  const std::string yaml = tmp("request.yaml");
  std::ofstream(yaml) << "dataflows: [dense, cardan]\nd: 8\nr: 384\nbatch: 4\nlayers: 1\ntp: 2\ncontext: 512\n"
                         "set: [core.dma.issue_ns=900]\nrouting_seed: 7\nreuse: false\n";
  const std::string out = tmp("from_yaml.csv");
  stasim::test::Output o = run_stasim("sweep --config " + yaml + " --force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  const std::string same = "--batch 4 --tp 2 --context 512 --set core.dma.issue_ns=900 --routing-seed 7 --no-reuse";
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow dense " + same));
  EXPECT_EQ(rows[1]["tpot_us"].get<double>(), run_tpot("--dataflow cardan " + same));
  // The command line on top: its --set after the file's (the later value of a key wins) and its --tp.
  const std::string over = tmp("over.csv");
  o = run_stasim("sweep --config " + yaml + " --dataflows dense --tp 4 --set core.dma.issue_ns=1100 --force --out " + over);
  ASSERT_EQ(o.code, 0) << o.text;
  rows = stasim::read_sweep_rows(over);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(),
            run_tpot("--dataflow dense --batch 4 --tp 4 --context 512 --set core.dma.issue_ns=900 "
                     "--set core.dma.issue_ns=1100 --routing-seed 7 --no-reuse"));
  // A switch that is not a boolean is bad input naming the file, line and key.
  const std::string bad = tmp("bad_switch.yaml");
  std::ofstream(bad) << "dataflows: [cardan]\nlayers: 1\nreuse: maybe\n";
  o = run_stasim("sweep --config " + bad + " --force --out " + tmp("bad.csv"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(bad + ":3:8: reuse: expected true or false, got 'maybe'"));
}

TEST(SweepOptionsCli, RequestOptionsMeanWhatTheyMeanInRun) {
  // Each row of the sweep is the run with the same options, to the nanosecond.
  const std::string shared = "--tp 2 --context 512 --set core.dma.issue_ns=900";
  const std::string out = tmp("shared.csv");
  stasim::test::Output o = run_stasim("sweep --layers 1 --dataflows dense,cardan --d 8 --r 384 --batch 4 --routing-seed 7 " +
                                      shared + " --force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow dense --batch 4 --routing-seed 7 " + shared));
  EXPECT_EQ(rows[1]["tpot_us"].get<double>(), run_tpot("--dataflow cardan --batch 4 --routing-seed 7 " + shared));
  // ... and not the default request's: TP 2 halves each rank's share of the expert weights it streams.
  EXPECT_NE(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow dense --batch 4 --routing-seed 7"));
  // The options every point shares are in the provenance and the grid's setup, not in the rows' keys.
  std::ifstream meta_file(out + ".meta.json");
  const nlohmann::json meta = nlohmann::json::parse(meta_file);
  EXPECT_EQ(meta["grid"]["setup"]["request"]["tp"], 2);
  EXPECT_EQ(meta["grid"]["setup"]["request"]["context"], 512);
  EXPECT_EQ(meta["grid"]["setup"]["request"]["routing_seed"], 7);
  EXPECT_EQ(meta["grid"]["setup"]["request"]["set"], nlohmann::json::array({"core.dma.issue_ns=900"}));
  EXPECT_EQ(meta["provenance"]["options"]["tp"], "2");

  // --routes: two tokens of Qwen3's top-8 from a CSV file, as run reads it; a batch of 2 matches its rows.
  const std::string routes = tmp("routes.csv");
  std::ofstream(routes) << "0,1,2,3,4,5,6,7\n0,1,2,3,8,9,10,11\n";
  const std::string routed = tmp("routed.csv");
  o = run_stasim("sweep --layers 1 --dataflows dense --batch 2 --routes " + routes + " --force --out " + routed);
  ASSERT_EQ(o.code, 0) << o.text;
  rows = stasim::read_sweep_rows(routed);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow dense --batch 2 --routes " + routes));
  std::ifstream routed_meta(routed + ".meta.json");
  EXPECT_EQ(nlohmann::json::parse(routed_meta)["grid"]["setup"]["routes"].get<std::string>().size(), 64u);  // SHA-256

  // --fuse-projections on DeepSeek-V2-Lite (it has shared experts to fuse with the router).
  const std::string fused = tmp("fused.csv");
  o = run_stasim("sweep --models deepseek-v2-lite --layers 1 --dataflows dense --fuse-projections --force --out " + fused);
  ASSERT_EQ(o.code, 0) << o.text;
  rows = stasim::read_sweep_rows(fused);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--model deepseek-v2-lite --dataflow dense --fuse-projections"));
}

TEST(SweepOptionsCli, RunSwitchesAreAxesWithAColumnEach) {
  const std::string out = tmp("axes.csv");
  stasim::test::Output o = run_stasim("sweep --layers 1 --dataflows cardan --d 8 --r 384 --vary option.reuse=0,1 "
                                      "--vary option.batch_gathers=true,false --jobs 2 --force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  // 2 x 2 combinations of one cardan point; the two axes are columns right after `vary`, values spelled 0/1.
  const std::string text = slurp(out);
  EXPECT_THAT(text, HasSubstr(",vary,option.reuse,option.batch_gathers,layers,"));
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["vary"], "option.reuse=0;option.batch_gathers=1");
  EXPECT_EQ(rows[0]["option.reuse"], 0);
  EXPECT_EQ(rows[0]["option.batch_gathers"], 1);
  EXPECT_EQ(rows[3]["vary"], "option.reuse=1;option.batch_gathers=0");
  // option.reuse=0 is run --no-reuse, option.batch_gathers=0 is run --no-batch-gathers.
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow cardan --no-reuse"));
  EXPECT_EQ(rows[2]["tpot_us"].get<double>(), run_tpot("--dataflow cardan"));
  EXPECT_EQ(rows[3]["tpot_us"].get<double>(), run_tpot("--dataflow cardan --no-batch-gathers"));
  // One gather per expert and projection issues more GpSimd instructions than batched gathers.
  EXPECT_GT(rows[3]["gpsimd_instructions"].get<double>(), rows[2]["gpsimd_instructions"].get<double>());

  // JSON lines carry the same columns, as numbers.
  const std::string jsonl = tmp("axes.jsonl");
  ASSERT_EQ(run_stasim("sweep --layers 1 --dataflows dense --vary option.overlap=0 --force --out " + jsonl).code, 0);
  std::ifstream in(jsonl);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(nlohmann::json::parse(line)["option.overlap"], 0);
  EXPECT_THAT(o.text, HasSubstr("down schedule weight-sbuf"));  // the summary says which schedule ran
}

// With batched gathers a gather group's experts send their partial gate/up rows in one exchange; the switch
// that turns it off (run --no-group-exchange) is an option axis and a key of a sweep file like the others.
TEST(SweepOptionsCli, GroupExchangeIsAnAxisAndASweepKey) {
  const std::string out = tmp("group_exchange.csv");
  stasim::test::Output o = run_stasim("sweep --layers 1 --dataflows cardan --d 8 --r 384 --vary option.group_exchange=0,1 "
                                      "--force --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["option.group_exchange"], 0);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), run_tpot("--dataflow cardan --no-group-exchange"));
  EXPECT_EQ(rows[1]["tpot_us"].get<double>(), run_tpot("--dataflow cardan"));
  // 16 exchanges per core and layer instead of 4 (groups of two experts at (8, 384)): the grouped step is shorter.
  EXPECT_GT(rows[0]["tpot_us"].get<double>(), rows[1]["tpot_us"].get<double>());
  const std::string yaml = tmp("group_exchange.yaml"), from_file = tmp("group_exchange_file.csv");
  std::ofstream(yaml) << "models: [qwen3-30b-a3b]\ndataflows: [cardan]\nd: [8]\nr: [384]\ngroup_exchange: false\n";
  o = run_stasim("sweep --config " + yaml + " --layers 1 --force --out " + from_file);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<stasim::SweepRow> file_rows = stasim::read_sweep_rows(from_file);
  ASSERT_EQ(file_rows.size(), 1u);
  EXPECT_EQ(file_rows[0]["tpot_us"].get<double>(), rows[0]["tpot_us"].get<double>());
  std::ofstream(yaml) << "models: [qwen3-30b-a3b]\ndataflows: [cardan]\ngroup_exchange: maybe\n";
  o = run_stasim("sweep --config " + yaml + " --layers 1 --force --out " + from_file);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("group_exchange"));
}

TEST(SweepOptionsCli, BadAxesAndConflictsAreBadInput) {
  const std::string out = " --out " + tmp("bad.csv");
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"--vary option.reuse=2", "--vary option.reuse=2: expected 0 or 1"},
           {"--vary option.reus=0,1", "did you mean 'option.reuse'?"},
           {"--vary option.tp=two", "--vary option.tp=two: expected a non-negative integer"},
           {"--no-reuse --vary option.reuse=0,1", "--vary option.reuse and --no-reuse both set --no-reuse's value"},
           {"--tp 2 --vary option.tp=1,2", "--vary option.tp and --tp both set --tp's value"},
           {"--vary batch=1,2", "--vary batch: 'batch' is a column of the sweep output"},
           {"--vary core.dma.engines=4 --vary core.dma.engines=8", "the key is varied twice"},
           {"--set core.dma.engine=8", "core.dma.engine"},
           {"--routes " + tmp("no_such_routes.yaml"), "no_such_routes.yaml"},
           {"--progress-every -1", "--progress-every"},
           // A sweep name that ships nowhere: a did-you-mean and the shipped names.
           {"--config qwen3-30b-a3b-dr", "--config: no sweep 'qwen3-30b-a3b-dr' (did you mean 'qwen3-30b-a3b-dr-k256'?); shipped sweeps: "},
       }) {
    stasim::test::Output o = run_stasim("sweep --layers 1 " + c.args + out);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(c.message)) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp("bad.csv")));  // refused before anything is written
}

TEST(SweepOptionsCli, OutputsRenamedIntoPlaceRefuseStdout) {
  // '-' is stdout for --json and the other streamed outputs; a sweep's, a merge's and calibrate's outputs are files
  // written beside the old one and renamed over it (the sweep's with FILE.meta.json, read back by --resume), so
  // '-' is bad input, refused before anything runs, and no file named '-' appears.
  const std::string folder = tmp("dash");
  std::filesystem::create_directories(folder);
  for (const std::string& args : {std::string("sweep --layers 1 --dataflows dense --out -"), std::string("merge --out - x.csv"),
                                  std::string("calibrate --out -")}) {
    stasim::test::Output o = stasim::test::run_shell("cd " + folder + " && " + STASIM_BINARY + " " + args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr("'-' (stdout): ")) << args;
    EXPECT_THAT(o.text, HasSubstr("not to stdout; name a file")) << args;
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder));
}

// fp32_table (on by default; run --no-fp32-table turns it off) as a sweep YAML key and as an axis: each row is the run
// with the same switch, and a value that is not a boolean names the file, line and key.
TEST(SweepOptionsCli, TheTableTypeIsAKeyAndAnAxis) {
  const std::string yaml = tmp("fp32_table.yaml");
  std::ofstream(yaml) << "dataflows: [cardan]\nlayers: 1\nfp32_table: false\n";
  const std::string keyed = tmp("fp32_table.csv");
  stasim::test::Output o = run_stasim("sweep --config " + yaml + " --force --out " + keyed);
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(keyed);
  ASSERT_EQ(rows.size(), 1u);
  const double fp32 = run_tpot("--dataflow cardan"), bf16 = run_tpot("--dataflow cardan --no-fp32-table");
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), bf16);
  EXPECT_GT(fp32, bf16);  // the reductions of the gathered rows run at the FP32 rate
  const std::string axis = tmp("fp32_axis.csv");
  o = run_stasim("sweep --layers 1 --dataflows cardan --vary option.fp32_table=0,1 --force --out " + axis);
  ASSERT_EQ(o.code, 0) << o.text;
  rows = stasim::read_sweep_rows(axis);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["tpot_us"].get<double>(), bf16);
  EXPECT_EQ(rows[1]["tpot_us"].get<double>(), fp32);
  const std::string bad = tmp("bad_table.yaml");
  std::ofstream(bad) << "dataflows: [cardan]\nlayers: 1\nfp32_table: perhaps\n";
  o = run_stasim("sweep --config " + bad + " --force --out " + tmp("bad_table.csv"));
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr(bad + ":3:13: fp32_table: expected true or false, got 'perhaps'"));
}

}  // namespace
