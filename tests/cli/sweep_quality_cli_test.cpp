// `stasim sweep --weights`: quality columns on a small synthetic layer (H = 64, I = 32, E = 4), each
// representation built once, the quality–latency front, and bad weights inputs (exit 2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "sim/studies/sweep_table.hpp"

namespace {

using stasim::test::run_stasim;
using testing::HasSubstr;

std::string tmp(const std::string& name) { return testing::TempDir() + "sweep_quality_" + name; }

const std::string kSynthetic = "synthetic:hidden=64,intermediate=32,experts=4,seed=5";

TEST(SweepQualityCli, NmseColumnsOnASyntheticLayer) {
  std::string out = tmp("grid.csv");
  auto r = run_stasim("sweep --layers 1 --d 4,8 --r 0,16 --K 16 --jobs 2 --weights " + kSynthetic + " --force --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  // Four distinct representations, each built once (one "quality:" line each) for 1 dense + 4 cardan points.
  std::size_t lines = 0;
  for (std::size_t at = r.text.find("quality: hybrid"); at != std::string::npos; at = r.text.find("quality: hybrid", at + 1))
    ++lines;
  EXPECT_EQ(lines, 4u) << r.text;
  EXPECT_THAT(r.text, HasSubstr("on the quality-latency front"));
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 5u);
  std::map<std::string, stasim::SweepRow> by_drk;
  for (const auto& row : rows) {
    ASSERT_EQ(row["status"], "ok") << row.dump();
    EXPECT_EQ(row["weights"], kSynthetic + "@0");  // Qwen3's first MoE layer is layer 0
    ASSERT_TRUE(row["nmse"].is_number()) << row.dump();
    by_drk[row["dataflow"].get<std::string>() + (row["d"].is_null() ? "" : "/" + row["d"].dump() + "/" + row["r"].dump())] = row;
  }
  // Dense BF16 is the original: nmse 0 at 16 bits, and nothing has a lower nmse, so it is on the front.
  EXPECT_EQ(by_drk["dense"]["nmse"], 0.0);
  EXPECT_EQ(by_drk["dense"]["quality_bits_per_weight"], 16.0);
  EXPECT_EQ(by_drk["dense"]["pareto_quality"], 1);
  // Rate on the layer: 8/d + 16·r/H + 16·(K·d + H·r)/(E·H·I), E·H·I = 4·64·32 = 8192.
  // d = 8, r = 0: 1 + 16·128/8192 = 1.25; d = 4, r = 16: 2 + 4 + 16·(64 + 1024)/8192 = 8.125.
  EXPECT_DOUBLE_EQ(by_drk["cardan/8/0"]["quality_bits_per_weight"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(by_drk["cardan/4/16"]["quality_bits_per_weight"].get<double>(), 8.125);
  // The low-rank fit of the VQ residual only lowers the error, and smaller blocks quantize better.
  for (const char* d : {"4", "8"})
    EXPECT_LT(by_drk[std::string("cardan/") + d + "/16"]["nmse"].get<double>(),
              by_drk[std::string("cardan/") + d + "/0"]["nmse"].get<double>()) << d;
  EXPECT_LT(by_drk["cardan/4/0"]["nmse"].get<double>(), by_drk["cardan/8/0"]["nmse"].get<double>());
  for (const auto& row : rows) EXPECT_GT(row["nmse"].get<double>() + (row["dataflow"] == "dense"), 0.0);
}

using stasim::test::slurp;

// Shards build their own representations; the builds are deterministic, so the merged file is the unsharded one
// byte for byte, quality columns and both fronts included.
TEST(SweepQualityCli, ShardsMergedEqualTheUnshardedSweep) {
  const std::string grid = "sweep --layers 1 --d 4,8 --r 0,16 --K 16 --jobs 2 --weights " + kSynthetic;
  ASSERT_EQ(run_stasim(grid + " --force --out " + tmp("all.csv")).code, 0);
  ASSERT_EQ(run_stasim(grid + " --shard 0/2 --force --out " + tmp("s0.csv")).code, 0);
  ASSERT_EQ(run_stasim(grid + " --shard 1/2 --force --out " + tmp("s1.jsonl")).code, 0);
  auto m = run_stasim("merge " + tmp("s0.csv") + " " + tmp("s1.jsonl") + " --out " + tmp("merged.csv"));
  ASSERT_EQ(m.code, 0) << m.text;
  EXPECT_EQ(slurp(tmp("merged.csv")), slurp(tmp("all.csv")));
  EXPECT_NE(slurp(tmp("all.csv")).find(",pareto,pareto_quality\n"), std::string::npos);
}

// Both commands read --weights through one parser and draw the same synthetic activations (2048 calibration
// tokens with seed 1 + 1000, 256 evaluation tokens with seed 1002), and build with the same defaults, so a layer
// has one NMSE whichever command measures it.
TEST(SweepQualityCli, RepresentAndSweepGiveALayerTheSameNmse) {
  const std::string json = tmp("represent.json");
  auto rep = run_stasim("represent --weights " + kSynthetic + " --d 8 --r 16 --K 16 --json " + json);
  ASSERT_EQ(rep.code, 0) << rep.text;
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(json));
  ASSERT_EQ(doc["representations"][0]["representation"], "hybrid");
  const double represent_nmse = doc["representations"][0]["nmse"].get<double>();
  const std::string out = tmp("one.csv");
  auto sweep = run_stasim("sweep --layers 1 --dataflows cardan --d 8 --r 16 --K 16 --weights " + kSynthetic +
                          " --force --out " + out);
  ASSERT_EQ(sweep.code, 0) << sweep.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 1u);
  // The CSV keeps 6 significant digits.
  EXPECT_NEAR(rows[0]["nmse"].get<double>(), represent_nmse, represent_nmse * 1e-5);
}

TEST(SweepQualityCli, BadWeightsAreBadInput) {
  auto r = run_stasim("sweep --layers 1 --d 8 --r 0 --weights synthetic:hiden=64 --out " + tmp("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("unknown key 'hiden'"));
  r = run_stasim("sweep --layers 1 --d 8 --r 0 --weights synthetic:size=huge --out " + tmp("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("--weights synthetic:size=huge: must be small or model"));
  // Sizes are whole numbers an int holds: 1e300 used to be cast to int (undefined behaviour).
  r = run_stasim("sweep --layers 1 --d 8 --r 0 --weights synthetic:hidden=1e300 --out " + tmp("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("--weights synthetic:hidden=1e300: '1e300' is not a whole number from 0 to 2147483647"));
  r = run_stasim("sweep --layers 1 --d 8 --r 0 --weights synthetic:seed=1,seed=2 --out " + tmp("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("seed is given twice"));
  // `tokens` sets the sweep's calibration tokens; represent takes them from --activations and says so.
  r = run_stasim("represent --weights synthetic:tokens=64 --d 8 --r 16 --K 16");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("--activations synthetic:tokens=N sets them"));
  r = run_stasim("sweep --layers 1 --d 8 --r 0 --weights " + tmp("absent.safetensors") + " --out " + tmp("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("absent.safetensors: no such weights file or directory"));
}

}  // namespace

namespace {

// A safetensors file with `header` (its length prefix = `length`, or the header's own length) and `data` bytes.
std::string raw_file(const std::string& name, const std::string& header, const std::string& data, long length = -1) {
  std::string path = tmp(name);
  std::ofstream out(path, std::ios::binary);
  std::uint64_t prefix = length >= 0 ? static_cast<std::uint64_t>(length) : header.size();
  for (int b = 0; b < 8; ++b) out.put(static_cast<char>(prefix >> (8 * b)));
  out << header << data;
  return path;
}

// Every malformed checkpoint stops the sweep before any point runs: exit 2, the file and the tensor named.
TEST(SweepQualityCli, MalformedCheckpointsNameFileAndTensor) {
  const std::string gate0 = "model.layers.0.mlp.experts.0.gate_proj.weight";
  auto sweep = [&](const std::string& path) {
    return run_stasim("sweep --layers 1 --d 8 --r 0 --weights " + path + " --out " + tmp("malformed.csv"));
  };
  std::string path = raw_file("dtype.safetensors", R"({")" + gate0 + R"(":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", "x");
  auto r = sweep(path);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr(path + ": tensor '" + gate0 + "' has an unknown dtype 'Q4'"));

  path = raw_file("length.safetensors", "{}      ", "", 4096);
  r = sweep(path);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr(path + ": header length 4096 runs past the end of the file (16 bytes)"));

  // Qwen3's gate is [I, H] = [768, 2048]; this one is [2, 2].
  path = raw_file("shape.safetensors", R"({")" + gate0 + R"(":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})",
                  std::string(16, '\0'));
  r = sweep(path);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr(path + ": tensor '" + gate0 + "' has shape [2, 2] but Qwen3-30B-A3B (H = 2048, I = 768, "
                                "E = 128) needs [768, 2048] for the gate projection of expert 0"));

  path = raw_file("missing.safetensors", R"({"lm_head.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                  std::string(4, '\0'));
  r = sweep(path);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr(path + ": no tensor '" + gate0 + "'"));
}

// A small Qwen3-like model (H = 256, I = 128, E = 8; Qwen3's tensor names) so the quality build stays fast.
std::string mini_model() {
  std::ifstream in(std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto replace = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  replace("name: Qwen3-30B-A3B", "name: Mini-Qwen3");
  replace("hidden: 2048", "hidden: 256");
  replace("intermediate: 768", "intermediate: 128");
  replace("experts: 128", "experts: 8");
  std::string path = tmp("mini-qwen3.yaml");
  std::ofstream(path) << text;
  return path;
}

// A synthetic layer exported under the model's checkpoint names (2 of its 8 experts, 2 shards + index) is read
// back by the sweep like a real checkpoint.
TEST(SweepQualityCli, ExportedCheckpointFeedsTheSweep) {
  std::string model = mini_model();
  std::string dir = tmp("mini_ckpt");
  auto r = run_stasim("export-weights --model " + model + " --weights synthetic:experts=2,seed=4 --shards 2 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_THAT(r.text, HasSubstr("export-weights: Mini-Qwen3 layer 0, 2 experts × 3 projections (H 256, I 128, bf16)"));
  std::ifstream index(dir + "/model.safetensors.index.json");
  std::string text((std::istreambuf_iterator<char>(index)), {});
  EXPECT_THAT(text, HasSubstr(R"("model.layers.0.mlp.experts.1.down_proj.weight": "model-00002-of-00002.safetensors")"));

  std::string out = tmp("ckpt.csv");
  r = run_stasim("sweep --models " + model + " --layers 1 --dataflows cardan --d 8 --r 0,16 --K 16 --jobs 2 --weights " +
                 dir + " --weights-experts 2 --force --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  std::vector<stasim::SweepRow> rows = stasim::read_sweep_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["weights"], dir + "@0/experts=2");
  // Rate on the read layer (H 256, I 128, E 2): 8/8 + 16·(16·8)/(2·256·128) = 1 + 2048/65536 = 1.03125 → 1.0313.
  EXPECT_DOUBLE_EQ(rows[0]["quality_bits_per_weight"].get<double>(), 1.0313);
  EXPECT_LT(rows[1]["nmse"].get<double>(), rows[0]["nmse"].get<double>());  // r = 16 fits part of the residual
  // Without --weights-experts the sweep wants all 8 experts, and the checkpoint has 2.
  r = run_stasim("sweep --models " + model + " --layers 1 --dataflows cardan --d 8 --r 0 --K 16 --weights " + dir +
                 " --out " + tmp("ckpt_all.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_THAT(r.text, HasSubstr("no tensor 'model.layers.0.mlp.experts.2.gate_proj.weight' in the weight_map"));
}

}  // namespace
