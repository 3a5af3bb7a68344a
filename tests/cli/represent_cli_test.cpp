// `stasim represent` end to end on a small synthetic layer: the three rows, the JSON fields, the written file,
// an activation file read back, and bad values named with exit code 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "workloads/representation_file.hpp"
#include "workloads/safetensors_writer.hpp"
#include "workloads/synthetic_weights.hpp"

namespace stasim {
namespace {

namespace fs = std::filesystem;
using test::run_stasim;

// H 64, I 32, 4 experts, gate and up: fast (well under a second).
const std::string kSmall =
    " --model qwen3-30b-a3b --weights synthetic:hidden=64,intermediate=32,experts=4,shared_rank=8"
    " --activations synthetic:tokens=256 --eval-tokens 64 --iterations 10";

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("stasim_represent_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(RepresentCli, ThreeRowsAtMatchedRatesAndJson) {
  const fs::path dir = temp_dir();
  const fs::path json = dir / "q.json";
  const fs::path out = dir / "rep.safetensors";
  const auto r = run_stasim("represent" + kSmall + " --d 4 --r 8 --K 16 --json " + json.string() + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("hybrid "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("vq_only "), std::string::npos);
  EXPECT_NE(r.text.find("lr_only "), std::string::npos);
  EXPECT_NE(r.text.find("matched rates:"), std::string::npos);
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["command"], "represent");
  EXPECT_EQ(doc["hidden"], 64);
  EXPECT_EQ(doc["intermediate"], 32);
  EXPECT_EQ(doc["experts"], 4);
  EXPECT_EQ(doc["evaluation_tokens"], 64);
  const auto& rows = doc["representations"];
  ASSERT_EQ(rows.size(), 3u);
  // uint8 indices: hybrid(4, 8, 16) = 8/4 + 16·8/64 + 16·(16·4 + 64·8)/(4·64·32) = 2 + 2 + 1.125 = 5.125.
  EXPECT_EQ(rows[0]["representation"], "hybrid");
  EXPECT_DOUBLE_EQ(rows[0]["bits_per_weight"].get<double>(), 5.125);
  // VQ-only: 8/d' + d'/32 → d' = 2 gives 4.0625 (d' = 1: 8.03125).
  EXPECT_EQ(rows[1]["representation"], "vq_only");
  EXPECT_EQ(rows[1]["d"], 2);
  EXPECT_EQ(rows[1]["r"], 0);
  EXPECT_DOUBLE_EQ(rows[1]["bits_per_weight"].get<double>(), 4.0625);
  // LR-only: 0.375·r' → r' = 14 gives 5.25 (13: 4.875, farther).
  EXPECT_EQ(rows[2]["representation"], "lr_only");
  EXPECT_EQ(rows[2]["r"], 14);
  EXPECT_DOUBLE_EQ(rows[2]["bits_per_weight"].get<double>(), 5.25);
  for (const auto& row : rows) {
    EXPECT_GT(row["nmse"].get<double>(), 0.0);
    EXPECT_LT(row["nmse"].get<double>(), 1.0);
  }
  // The written hybrid reads back with the shapes of docs/cardan.md.
  const BuiltLayer built = read_representation(out.string());
  ASSERT_EQ(built.projections.size(), 2u);
  EXPECT_EQ(built.projections[1].codebook.rows(), 16);
  EXPECT_EQ(built.projections[1].codebook.cols(), 4);
  EXPECT_EQ(built.projections[1].index_maps.size(), 4u);
  EXPECT_EQ(built.projections[1].basis.cols(), 8);
  fs::remove_all(dir);
}

TEST(RepresentCli, SameSeedSameTableWithOneOrTwoThreads) {
  const auto one = run_stasim("represent" + kSmall + " --d 4 --r 8 --K 16 --threads 1 --json -");
  const auto two = run_stasim("represent" + kSmall + " --d 4 --r 8 --K 16 --threads 2 --json -");
  ASSERT_EQ(one.code, 0) << one.text;
  ASSERT_EQ(two.code, 0) << two.text;
  auto nmse_of = [](const std::string& text) {
    const nlohmann::json doc = nlohmann::json::parse(text.substr(text.find("\n{") + 1));
    std::vector<double> out;
    for (const auto& row : doc["representations"]) out.push_back(row["nmse"].get<double>());
    return out;
  };
  EXPECT_EQ(nmse_of(one.text), nmse_of(two.text));
}

TEST(RepresentCli, ReadsAnActivationFile) {
  const fs::path dir = temp_dir();
  // 80 tokens of activations, [80, 64] row-major as a hidden-state dump: the first 64 calibrate, the last 16
  // evaluate.
  SafetensorsWriter writer;
  SyntheticActivationsConfig a;
  a.hidden = 64;
  a.tokens = 80;
  const Eigen::MatrixXf x = synthetic_activations(a);  // H × n column-major = [n, H] row-major
  writer.add_floats("activations", {80, 64}, std::vector<float>(x.data(), x.data() + x.size()), TensorDtype::f32);
  const fs::path file = dir / "acts.safetensors";
  writer.write(file.string());
  const auto r = run_stasim("represent --weights synthetic:hidden=64,intermediate=32,experts=4 --d 4 --r 8 --K 16 "
                            "--activations " + file.string() + " --eval-tokens 16");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("64 tokens of " + file.string() + " (evaluation: its last 16)"), std::string::npos) << r.text;
  // Wrong H in the file: named, exit 2.
  const auto bad = run_stasim("represent --weights synthetic:hidden=32,intermediate=32,experts=4 --d 4 --r 8 --K 16 "
                              "--activations " + file.string());
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("tensor 'activations' has shape [80, 64], expected [tokens, 32]"), std::string::npos) << bad.text;
  fs::remove_all(dir);
}

TEST(RepresentCli, BadValuesNameTheKeyAndExit2) {
  struct Case {
    std::string args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {" --d 7 --r 8 --K 16", "d = 7 does not divide hidden H = 64"},
      {" --d 4 --r 8 --K 300", "K = 300 is outside 2..256"},
      {" --d 4 --r 40 --K 16", "r = 40 is outside 0..32 = min(H = 64, I = 32)"},
  };
  for (const Case& c : cases) {
    const auto r = run_stasim("represent" + kSmall + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.text;
    EXPECT_NE(r.text.find(c.expected), std::string::npos) << c.args << "\n" << r.text;
  }
  const std::vector<Case> inputs = {
      {" --weights synthetic:hiden=3", "unknown key 'hiden' (did you mean 'hidden'?)"},
      {" --weights synthetic --activations synthetic:tokens=x", "'x' is not a number"},
      {" --weights /nonexistent/model.safetensors", "/nonexistent/model.safetensors"},
  };
  for (const Case& c : inputs) {
    const auto r = run_stasim("represent --d 4 --r 8 --K 16" + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.text;
    EXPECT_NE(r.text.find(c.expected), std::string::npos) << c.args << "\n" << r.text;
  }
}

}  // namespace
}  // namespace stasim
