// Results say how they were made: `stasim --version`, the provenance block of every JSON result, sweep and op-table
// outputs (<out>.meta.json) and traces (otherData), and `--dump-config`, whose sections hash to the provenance's
// config SHA-256s. Every new output option rejects a bad value with exit 2 before simulating.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "sim/core/build_info.hpp"
#include "workloads/sha256.hpp"

namespace {

using stasim::test::Output;
using testing::HasSubstr;

Output run(const std::string& args) { return stasim::test::run_stasim(args); }

std::string tmp(const std::string& name) { return testing::TempDir() + "provenance_" + name; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

std::string emit(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

bool is_sha256(const nlohmann::json& value) {
  if (!value.is_string() || value.get<std::string>().size() != 64) return false;
  return value.get<std::string>().find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(Provenance, VersionPrintsTheVersionGitDescribeAndTheConfigsFolder) {
  Output o = run("--version");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr(std::string("stasim ") + stasim::stasim_version() + " (git " +
                                stasim::stasim_git_describe() + ")"));
  // Built from a source tree and not installed: the shipped configs are the source tree's.
  EXPECT_THAT(o.text, HasSubstr("configs: " + std::string(STASIM_SOURCE_DIR) + "/configs"));
}

TEST(Provenance, RunJsonRecordsCommandLineOptionsSetsAndConfigHashes) {
  const std::string json = tmp("run.json"), dump = tmp("run_dump.yaml");
  const std::string args = "run --layers 1 --quiet --no-reuse --routing-seed 7 --set core.dma.issue_ns=900 "
                           "--set model.deployment.context=2048 --json " + json + " --dump-config " + dump;
  Output o = run(args);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json p = read_json(json)["provenance"];
  EXPECT_EQ(p["stasim"]["version"], stasim::stasim_version());
  EXPECT_EQ(p["stasim"]["git"], stasim::stasim_git_describe());
  EXPECT_EQ(p["command"], "run");
  // argv verbatim, except the program's own path, which says where it was built or installed.
  std::vector<std::string> words{"stasim"};
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  EXPECT_EQ(p["command_line"].get<std::vector<std::string>>(), words);
  // Every option, given or not: the ablation switches as booleans, values as their text, defaults included.
  const nlohmann::json& opt = p["options"];
  EXPECT_EQ(opt["no-reuse"], true);
  EXPECT_EQ(opt["no-overlap"], false);
  EXPECT_EQ(opt["fuse-projections"], false);
  EXPECT_EQ(opt["routing-seed"], "7");
  EXPECT_EQ(opt["dataflow"], "cardan");
  EXPECT_EQ(opt["d"], "8");
  EXPECT_EQ(opt["down-schedule"], "auto");
  EXPECT_EQ(opt["hw"], "trn3-calibrated");
  EXPECT_EQ(opt["routes"], "");
  EXPECT_EQ(p["sets"], nlohmann::json({"core.dma.issue_ns=900", "model.deployment.context=2048"}));
  EXPECT_EQ(p["configs"]["hardware"]["name"], "trn3-calibrated");
  EXPECT_EQ(p["configs"]["model"]["name"], "qwen3-30b-a3b");
  ASSERT_TRUE(is_sha256(p["configs"]["hardware"]["sha256"])) << p.dump(2);
  ASSERT_TRUE(is_sha256(p["configs"]["model"]["sha256"])) << p.dump(2);

  // The dump holds the resolved configs: the overlay merged into trn3 with the --set applied, and the model with
  // its model.* override; each section, emitted alone, hashes to the provenance's SHA-256.
  std::ifstream dump_file(dump);
  std::stringstream dump_text;
  dump_text << dump_file.rdbuf();
  EXPECT_THAT(dump_text.str(), testing::Not(HasSubstr("!stasim")));  // --set values appear as plain values
  const YAML::Node dumped = YAML::Load(dump_text.str());
  EXPECT_EQ(dumped["hardware"]["name"].as<std::string>(), "trn3-calibrated");
  EXPECT_EQ(dumped["hardware"]["core"]["dma"]["issue_ns"].as<double>(), 900);
  EXPECT_EQ(dumped["hardware"]["core"]["dma"]["bytes_per_ns_per_engine"].as<double>(), 33);  // from the base
  EXPECT_FALSE(dumped["hardware"]["base"]);
  EXPECT_EQ(dumped["model"]["deployment"]["context"].as<int>(), 2048);
  EXPECT_EQ(stasim::sha256_hex(emit(dumped["hardware"])), p["configs"]["hardware"]["sha256"]);
  EXPECT_EQ(stasim::sha256_hex(emit(dumped["model"])), p["configs"]["model"]["sha256"]);

  // Round trip: the two sections as files, run with the same switches and no --set, are the same configs (same
  // hashes) and give the same simulated step.
  const std::string hw_file = tmp("rt_hw.yaml"), model_file = tmp("rt_model.yaml"), rt_json = tmp("rt.json");
  std::ofstream(hw_file) << emit(dumped["hardware"]);
  std::ofstream(model_file) << emit(dumped["model"]);
  o = run("run --layers 1 --quiet --no-reuse --routing-seed 7 --hw " + hw_file + " --model " + model_file +
          " --json " + rt_json);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json rt = read_json(rt_json);
  EXPECT_EQ(rt["provenance"]["configs"]["hardware"]["sha256"], p["configs"]["hardware"]["sha256"]);
  EXPECT_EQ(rt["provenance"]["configs"]["model"]["sha256"], p["configs"]["model"]["sha256"]);
  nlohmann::json first = read_json(json), again = rt;
  first.erase("provenance");
  again.erase("provenance");
  EXPECT_EQ(again.dump(), first.dump());
}

TEST(Provenance, TheHardwareHashFollowsTheResolvedValuesNotTheFile) {
  auto hardware_hash = [](const std::string& extra, const std::string& name) {
    Output o = run("run --layers 1 --quiet --dataflow dense --down-schedule weight-sbuf --json " + tmp(name) + extra);
    EXPECT_EQ(o.code, 0) << o.text;
    return read_json(tmp(name))["provenance"]["configs"]["hardware"]["sha256"].get<std::string>();
  };
  const std::string plain = hardware_hash("", "h0.json");
  // The same value set explicitly is the same config; a different value is another. trn3-calibrated keeps the
  // DMA issue cost of its base trn3.yaml, 900 ns (trigger to first byte in the NeuronCore-v3 profiles; not fitted).
  EXPECT_EQ(hardware_hash(" --set core.dma.issue_ns=900", "h1.json"), plain);
  EXPECT_NE(hardware_hash(" --set core.dma.issue_ns=901", "h2.json"), plain);
}

TEST(Provenance, CompareTraceOpsAndScheduleCarryIt) {
  const std::string json = tmp("cmp.json"), trace = tmp("cmp_trace.json"), ops = tmp("cmp_ops.csv");
  Output o = run("compare --layers 1 --quiet --dataflows dense,cardan --down-schedule weight-sbuf --json " + json +
                 " --trace " + trace + " --ops " + ops);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json p = read_json(json)["provenance"];
  EXPECT_EQ(p["command"], "compare");
  EXPECT_EQ(p["options"]["dataflows"], "dense,cardan");
  for (const char* dataflow : {"dense", "cardan"}) {
    const std::string tag = std::string(".") + dataflow;
    EXPECT_EQ(read_json(tmp("cmp_trace") + tag + ".json")["otherData"]["provenance"], p) << dataflow;
    EXPECT_EQ(read_json(tmp("cmp_ops") + tag + ".csv.meta.json")["provenance"], p) << dataflow;
  }

  const std::string sched = tmp("sched.json");
  o = run("schedule --quiet --schedule configs/schedules/psum_contention.yaml --json " + sched);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json s = read_json(sched)["provenance"];
  EXPECT_EQ(s["command"], "schedule");
  EXPECT_EQ(s["configs"]["hardware"]["name"], "trn3");  // schedule's default --hw, by its shipped name
  EXPECT_EQ(s["configs"]["files"]["schedule"]["name"], "configs/schedules/psum_contention.yaml");
  // The schedule file is hashed byte for byte.
  std::ifstream file(std::string(STASIM_SOURCE_DIR) + "/configs/schedules/psum_contention.yaml", std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  EXPECT_EQ(s["configs"]["files"]["schedule"]["sha256"], stasim::sha256_hex(bytes.str()));
}

TEST(Provenance, SweepAndMergeWriteAMetaFileBesideTheirOutput) {
  const std::string out = tmp("sweep.csv"), merged = tmp("merged.csv");
  std::filesystem::remove(out);
  Output o = run("sweep --models qwen3-30b-a3b,olmoe-1b-7b --dataflows dense --layers 1 --jobs 1 "
                 "--vary core.dma.issue_ns=400,900 --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json p = read_json(out + ".meta.json")["provenance"];
  EXPECT_EQ(p["command"], "sweep");
  EXPECT_EQ(p["options"]["vary"], nlohmann::json({"core.dma.issue_ns=400,900"}));
  EXPECT_EQ(p["configs"]["hardware"]["name"], "trn3-calibrated");
  ASSERT_TRUE(p["configs"]["models"].contains("qwen3-30b-a3b")) << p.dump(2);
  EXPECT_TRUE(is_sha256(p["configs"]["models"]["olmoe-1b-7b"]["sha256"]));

  o = run("merge " + out + " --out " + merged);
  ASSERT_EQ(o.code, 0) << o.text;
  const nlohmann::json m = read_json(merged + ".meta.json");
  EXPECT_EQ(m["provenance"]["command"], "merge");
  EXPECT_EQ(m["inputs"][out], p);  // each input's own provenance, as its sweep wrote it
}

TEST(Provenance, BadOutputOptionsExitTwoBeforeSimulating) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"run --layers 1 --ops /nonexistent_folder/ops.csv", "--ops /nonexistent_folder/ops.csv: no folder '/nonexistent_folder'"},
      {"run --layers 1 --dump-config /nonexistent_folder/c.yaml", "--dump-config /nonexistent_folder/c.yaml: no folder"},
      {"run --layers 1 --json " + testing::TempDir(), "is a folder; name a file"},
      {"run --layers 1 --trace t.json --trace-layers 2:x", "--trace-layers '2:x': expected A:B"},
      {"run --layers 1 --trace t.json --trace-layers 3:1", "--trace-layers '3:1': expected A:B"},
      {"run --layers 1 --trace-layers 0:0", "--trace-layers 0:0: it selects what --trace writes; add --trace FILE"},
      {"compare --layers 1 --trace " + tmp("x.json") + " --trace-layers=-1:0", "--trace-layers '-1:0'"},
  };
  for (const Case& c : cases) {
    Output o = run(c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(c.message)) << c.args;
    EXPECT_THAT(o.text, testing::Not(HasSubstr("TPOT"))) << c.args;  // failed before simulating
  }
  // The range is checked against the simulated step's layers (2 here: 0 and 1) once they are known.
  Output o = run("run --layers 2 --quiet --trace " + tmp("range.json") + " --trace-layers 1:2");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--trace-layers '1:2': expected A:B (layers A to B, 0 <= A <= B < 2"));
}

}  // namespace
