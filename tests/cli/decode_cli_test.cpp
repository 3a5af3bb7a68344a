// `stasim run` and `stasim compare` end to end: defaults run with no argument, JSON fields, and bad input
// (exit 2 with the parameter and its limit named).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;

using stasim::test::Output;

Output run(const std::string& args) { return stasim::test::run_stasim(args); }

// `stasim run ARGS --quiet --json FILE`, expected to succeed; its JSON document (`file` names the scratch file).
nlohmann::json run_json(const std::string& args, const std::string& file) {
  const std::string path = testing::TempDir() + file;
  Output o = run("run " + args + " --quiet --json " + path);
  EXPECT_EQ(o.code, 0) << o.text;
  return nlohmann::json::parse(std::ifstream(path));
}

// Bad input: each `stasim ARGS --layers 1` exits 2 with `message` in its output.
struct Refusal {
  const char* args;
  const char* message;
};
void expect_refused(std::initializer_list<Refusal> cases) {
  for (const Refusal& c : cases) {
    Output o = run(std::string(c.args) + " --layers 1");
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(c.message)) << c.args;
  }
}

TEST(DecodeCli, RunWorksWithNoArgumentAndPrintsTheReport) {
  Output o = run("run --layers 2");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("Qwen3-30B-A3B on trn3"));
  EXPECT_THAT(o.text, HasSubstr("dataflow cardan (hybrid(d=8,r=384,K=256))"));
  EXPECT_THAT(o.text, HasSubstr("TPOT "));
  EXPECT_THAT(o.text, HasSubstr("down schedule "));
  EXPECT_THAT(o.text, HasSubstr("critical path by phase"));
  EXPECT_THAT(o.text, testing::Not(HasSubstr("Copyright")));
}

TEST(DecodeCli, CriticalPathNamesItsDmaQueuesAndTheyAddUpToItsDmaTime) {
  std::string path = testing::TempDir() + "run_queues.json";
  Output o = run("run --layers 2 --down-schedule weight-sbuf --json " + path);
  ASSERT_EQ(o.code, 0) << o.text;
  // Queues are named c<core>.dma<queue>; which core's queue leads is the model's outcome, not the format's.
  EXPECT_THAT(o.text, testing::ContainsRegex("critical path by DMA queue \\(us\\): c[01]\\.dma[0-9]+ "));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  const nlohmann::json& queues = j["critical_path"]["by_dma_queue_us"];
  ASSERT_FALSE(queues.empty());
  double sum = 0, longest = 0;
  std::string longest_queue;
  for (const auto& [queue, us] : queues.items()) {
    sum += us.get<double>();
    // Ties go to the later name: the line sorts (figure, name) from the largest down.
    if (us.get<double>() > longest || (us.get<double>() == longest && queue > longest_queue)) {
      longest = us.get<double>();
      longest_queue = queue;
    }
  }
  // Each figure is rounded to the nanosecond: the queues add up to the path's DMA time within 1 ns per queue.
  EXPECT_NEAR(sum, j["critical_path"]["by_engine_us"]["dma"].get<double>(), 0.001 * queues.size());
  // The line lists the longest queue first. The hybrid's expert exchanges (partial gate/up sums sent to the other
  // core) go on each core's last queue, 16 - 1 = 15 on trn3, and are on the path of both cores.
  EXPECT_THAT(o.text, HasSubstr("critical path by DMA queue (us): " + longest_queue + " "));
  EXPECT_TRUE(queues.contains("c0.dma15"));
  EXPECT_TRUE(queues.contains("c1.dma15"));
}

TEST(DecodeCli, RunJsonHoldsTheDocumentedFields) {
  std::string path = testing::TempDir() + "run.json";
  Output o = run("run --layers 2 --quiet --down-schedule weight-psum --json " + path);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  for (const char* key : {"tpot_us", "layers", "moe_block_us", "critical_path", "engines", "dma", "storage",
                          "down_schedule", "sim"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["layers"], 2);
  EXPECT_EQ(j["down_schedule"]["stationary"], "weight");
  EXPECT_EQ(j["down_schedule"]["accumulate"], "psum");
  // 8/8 + 16 x 384/2048 + 16 (256 x 8 + 2048 x 384)/(128 x 2048 x 768) = 1 + 3 + 0.0627 = 4.0627.
  EXPECT_DOUBLE_EQ(j["storage"]["bits_per_weight"].get<double>(), 4.0627);
  // Batched gathers in calls of half the top-8 = 4 experts, 2 groups per projection and core. Each call is one
  // instruction plus the uint8-index widening = 2; x 2 groups x 2 projections x 2 cores x 2 layers = 32.
  EXPECT_EQ(j["engines"]["gpsimd"]["instructions"], 2 * 2 * 2 * 2 * 2);
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "dma", "collective"})
    EXPECT_TRUE(j["critical_path"]["by_engine_us"].contains(e)) << e;
  EXPECT_GT(j["dma"]["hbm_read_bytes"].get<double>(), 0);
}

// --fused-gate-up-loads moves the same bytes in 16 times fewer descriptors (Qwen3 dense: 2048 -> 128 per expert
// and core), so the dense step is faster; HBM bytes do not change.
TEST(DecodeCli, FusedGateUpLoadsMakeDenseFasterWithTheSameBytes) {
  auto step = [](const std::string& extra) { return run_json("--dataflow dense --layers 2" + extra, "fused.json"); };
  nlohmann::json apart = step(""), fused = step(" --fused-gate-up-loads");
  EXPECT_LT(fused["tpot_us"].get<double>(), apart["tpot_us"].get<double>());
  EXPECT_EQ(fused["dma"]["hbm_read_bytes"], apart["dma"]["hbm_read_bytes"]);
}

// --private-hwdge: the hybrid's J_e and C_e loads take their descriptors from the hardware DGE, so GpSimd loses
// their descriptor work (one op per load: 2 layers x 2 cores x 8 experts x gate and up x J and C = 128 ops) but
// no instruction (the ops count none), and nothing else moves: the same bytes.
TEST(DecodeCli, PrivateHardwareDgeTakesTheDescriptorWorkOffGpSimd) {
  auto step = [](const std::string& extra) {
    return run_json("--layers 2 --down-schedule weight-sbuf" + extra, "private_dge.json");
  };
  nlohmann::json sw = step(""), hw = step(" --private-hwdge");
  EXPECT_LT(hw["engines"]["gpsimd"]["active_us"].get<double>(), sw["engines"]["gpsimd"]["active_us"].get<double>());
  EXPECT_EQ(hw["engines"]["gpsimd"]["instructions"], sw["engines"]["gpsimd"]["instructions"]);
  EXPECT_EQ(sw["engines"]["gpsimd"]["instructions"].get<int>(), 32);  // 2 layers x 2 cores x 2 calls x 2 projections x 2
  EXPECT_EQ(hw["dma"]["hbm_read_bytes"], sw["dma"]["hbm_read_bytes"]);
  EXPECT_EQ(sw["sim"]["ops"].get<int>() - hw["sim"]["ops"].get<int>(), 128);
}

// --fused-gate-up-exchange: half the per-expert partial-sum exchanges of the hybrid (16 -> 8 per core and layer;
// --no-group-exchange, since batched gathers' groups already send their rows together), the same HBM bytes; where
// nothing crosses between cores, a clear error (exit 2).
TEST(DecodeCli, AFusedGateUpExchangeHalvesTheExchangesOrSaysWhyItCannot) {
  auto step = [](const std::string& extra) { return run_json("--layers 2" + extra, "fusedx.json"); };
  nlohmann::json apart = step(" --no-group-exchange"), fused = step(" --no-group-exchange --fused-gate-up-exchange");
  EXPECT_LT(fused["tpot_us"].get<double>(), apart["tpot_us"].get<double>());
  EXPECT_EQ(fused["dma"]["hbm_read_bytes"], apart["dma"]["hbm_read_bytes"]);
  expect_refused({
      {"run --fused-gate-up-exchange --dataflow xla",
       "--fused-gate-up-exchange: nothing to fuse: the xla dataflow exchanges no partial sums"},
      {"run --fused-gate-up-exchange --dataflow w4a8",
       "--fused-gate-up-exchange: nothing to fuse: the w4a8 dataflow exchanges no partial sums (compiler-lowered"},
      {"run --fused-gate-up-exchange --lnc 1 --tp 8",
       "--fused-gate-up-exchange: nothing to fuse: one core per rank (lnc 1) exchanges nothing"},
      {"run --fused-gate-up-exchange --model nemotron-3-nano-30b-a3b",
       "--fused-gate-up-exchange: nothing to fuse: NVIDIA-Nemotron-3-Nano-30B-A3B has no gate projection"},
  });
}

// --split-top-k: the cores split each token's experts instead of H (the same HBM bytes, no partial rows cross);
// where there is nothing to split, or the top-k does not divide over the cores, a clear error (exit 2).
TEST(DecodeCli, TheTopKSplitReadsTheSameBytesOrSaysWhyItCannot) {
  nlohmann::json apart = run_json("--layers 2 --dataflow dense", "ksplit_apart.json");
  nlohmann::json split = run_json("--layers 2 --dataflow dense --split-top-k", "ksplit.json");
  EXPECT_EQ(split["dma"]["hbm_read_bytes"], apart["dma"]["hbm_read_bytes"]);
  EXPECT_NE(split["tpot_us"].get<double>(), apart["tpot_us"].get<double>());
  EXPECT_EQ(apart["experts"]["cores_split"], "hidden");
  EXPECT_EQ(split["experts"]["cores_split"], "top_k");
  expect_refused({
      {"run --split-top-k --dataflow xla", "--split-top-k: the xla dataflow runs each expert as its own kernels"},
      {"run --split-top-k --dataflow w4a8", "--split-top-k: the w4a8 dataflow runs each expert as its own kernels"},
      {"run --split-top-k --all-experts", "--split-top-k: --all-experts runs every expert on every core"},
      {"run --split-top-k --lnc 1 --tp 8", "--split-top-k: one core per rank (lnc 1) has nothing to split"},
      {"run --split-top-k --set model.moe.top_k=3",
       "--split-top-k: Qwen3-30B-A3B routes top-3, which 2 cores cannot split evenly"},
      {"run --split-top-k --fused-gate-up-exchange",
       "--fused-gate-up-exchange: nothing to fuse: with --split-top-k each core runs whole"},
  });
}

// A switch that only refines another is refused without it by run and compare (exit 2, naming both), since it
// would change nothing: --recompute-table needs --no-reuse (with reuse z and T are computed once per token),
// --no-group-exchange needs batched gathers (without them every expert sends its own rows), --group-routes needs
// routes (--all-experts has none: 1051.240 us at batch 4 with or without it, before the refusal). With its partner it
// runs: T per expert on top of z per expert adds TensorE work (the step grows).
TEST(DecodeCli, ASwitchThatWouldChangeNothingWithoutItsPartnerSaysSo) {
  expect_refused({
      {"run --recompute-table", "--recompute-table: the table is recomputed per expert only where z is, without reuse; add --no-reuse"},
      {"run --dataflow dense --recompute-table", "add --no-reuse"},
      {"compare --dataflows dense,cardan --recompute-table", "add --no-reuse"},
      {"run --no-batch-gathers --no-group-exchange", "--no-group-exchange: with --no-batch-gathers every expert already sends"},
      {"compare --no-batch-gathers --no-group-exchange", "drop one of the two"},
      {"run --batch 4 --all-experts --group-routes", "--group-routes: --all-experts runs every expert once over all tokens"},
  });
  nlohmann::json z_only = run_json("--layers 1 --no-reuse", "z_only.json");
  nlohmann::json z_and_t = run_json("--layers 1 --no-reuse --recompute-table", "z_and_t.json");
  // T once more for each expert after the first (7 of Qwen3's 8), one matmul per projection (gate, up) and core (a
  // core's 128 of the H / d = 2048 / 8 = 256 blocks fill one stationary tile): 7 x 2 x 2 = 28 more TensorE instructions.
  EXPECT_EQ(z_and_t["engines"]["tensor"]["instructions"].get<int>() - z_only["engines"]["tensor"]["instructions"].get<int>(), 28);
  EXPECT_GT(z_and_t["engines"]["tensor"]["active_us"].get<double>(), z_only["engines"]["tensor"]["active_us"].get<double>());
  EXPECT_GT(z_and_t["tpot_us"].get<double>(), z_only["tpot_us"].get<double>());
}

// --group-routes: several tokens per core, the hybrid loads each distinct expert of a core once for its tokens
// instead of once per (token, expert) route (fewer HBM bytes: OLMoE at 8 tokens routes 64 (token, expert) pairs over
// fewer distinct experts per core); it changes nothing at one token, nor dense, whose loop stays per route; the
// JSON names the loop that ran.
TEST(DecodeCli, GroupRoutesSharesTheHybridsExpertsBetweenTokensAndNothingElse) {
  const std::string olmoe = "--layers 1 --model olmoe-1b-7b --batch 8 --down-schedule weight-sbuf";
  nlohmann::json routes = run_json(olmoe, "routes.json"), grouped = run_json(olmoe + " --group-routes", "grouped.json");
  EXPECT_EQ(routes["experts"]["loop"], "routes");
  EXPECT_EQ(grouped["experts"]["loop"], "experts");
  EXPECT_EQ(routes["experts"]["cores_split"], "tokens");
  EXPECT_LT(grouped["dma"]["hbm_read_bytes"].get<double>(), routes["dma"]["hbm_read_bytes"].get<double>());
  EXPECT_LT(grouped["tpot_us"].get<double>(), routes["tpot_us"].get<double>());
  nlohmann::json dense = run_json(olmoe + " --dataflow dense", "dense_routes.json");
  nlohmann::json dense_grouped = run_json(olmoe + " --dataflow dense --group-routes", "dense_grouped.json");
  EXPECT_EQ(dense_grouped["experts"]["loop"], "routes");
  EXPECT_EQ(dense_grouped["tpot_us"], dense["tpot_us"]);
  EXPECT_EQ(dense_grouped["dma"]["hbm_read_bytes"], dense["dma"]["hbm_read_bytes"]);
  nlohmann::json one = run_json("--layers 1", "one.json"), one_grouped = run_json("--layers 1 --group-routes", "one_grouped.json");
  EXPECT_EQ(one_grouped["tpot_us"], one["tpot_us"]);
  EXPECT_EQ(one_grouped["experts"]["cores_split"], "hidden");
  Output text = run("run " + olmoe + " --group-routes");
  EXPECT_EQ(text.code, 0) << text.text;
  EXPECT_THAT(text.text, HasSubstr("selective: each core loads each distinct expert of its tokens once (--group-routes), cores split the tokens"));
  // xla runs each distinct expert as its own kernels over the step's tokens, with or without the switch.
  nlohmann::json xla = run_json(olmoe + " --dataflow xla", "xla_loop.json");
  EXPECT_EQ(xla["experts"]["loop"], "experts");
  text = run("run " + olmoe + " --dataflow xla");
  EXPECT_THAT(text.text, HasSubstr("selective: each distinct expert runs as its own kernels over its tokens"));
}

// --explicit-psum: dense and w4a8-fused put their PSUM tensors at nki-library's explicit addresses. One Qwen3 layer,
// weight-sbuf: a core's 192 columns of I are 2 banks, which gate, up and the drained down projection share, so
// dense's PSUM peak falls from 4 banks (rotating: gate and up of an expert apart) to 2, the instructions stay
// (2116), and each expert's gate/up follows the previous expert's tail, so the MoE block takes longer (121.683 ->
// 122.396 us); w4a8-fused's conversion round trip comes onto that chain (91.577 -> 111.175 us). The hybrid keeps its own
// layout, and w4a8 (compiler-lowered) has no kernel to address PSUM in: the same step either way.
TEST(DecodeCli, ExplicitPsumPutsDenseAndW4a8OnTheSameBanksForEveryExpert) {
  const std::string layer = "--layers 1 --down-schedule weight-sbuf";
  nlohmann::json dense = run_json(layer + " --dataflow dense", "dense_rot.json");
  nlohmann::json dense_x = run_json(layer + " --dataflow dense --explicit-psum", "dense_explicit.json");
  EXPECT_EQ(dense["psum"]["peak_banks"], 4);
  EXPECT_EQ(dense_x["psum"]["peak_banks"], 2);
  EXPECT_EQ(dense_x["engines"]["tensor"]["instructions"], dense["engines"]["tensor"]["instructions"]);
  EXPECT_GT(dense_x["moe_block_us"].get<double>(), dense["moe_block_us"].get<double>());
  nlohmann::json w4a8 = run_json(layer + " --dataflow w4a8-fused", "w4a8_rot.json");
  nlohmann::json w4a8_x = run_json(layer + " --dataflow w4a8-fused --explicit-psum", "w4a8_explicit.json");
  EXPECT_GT(w4a8_x["moe_block_us"].get<double>(), w4a8["moe_block_us"].get<double>() + 10.0);
  nlohmann::json lowered = run_json(layer + " --dataflow w4a8", "w4a8_lowered.json");
  nlohmann::json lowered_x = run_json(layer + " --dataflow w4a8 --explicit-psum", "w4a8_lowered_explicit.json");
  EXPECT_EQ(lowered_x["tpot_us"], lowered["tpot_us"]);
  nlohmann::json cardan = run_json(layer, "cardan_rot.json"), cardan_x = run_json(layer + " --explicit-psum", "cardan_explicit.json");
  EXPECT_EQ(cardan_x["tpot_us"], cardan["tpot_us"]);
}

TEST(DecodeCli, CompareReportsSpeedupsAgainstTheFirstDataflow) {
  std::string path = testing::TempDir() + "compare.json";
  Output o = run("compare --layers 2 --dataflows dense,cardan --down-schedule weight-sbuf --json " + path);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("dense"));
  EXPECT_THAT(o.text, HasSubstr("cardan"));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["runs"][0]["speedup_vs_dense"].get<double>(), 1.0);
  double speedup = j["runs"][0]["tpot_us"].get<double>() / j["runs"][1]["tpot_us"].get<double>();
  EXPECT_NEAR(j["runs"][1]["speedup_vs_dense"].get<double>(), speedup, 1e-4);
}

TEST(DecodeCli, BadParametersNameTheParameterAndTheLimit) {
  expect_refused({
      {"run --d 7", "d = 7 does not divide hidden H = 2048"},
      {"run --K 512", "K = 512"},
      {"run --r 5000", "r = 5000"},
      {"run --dataflow cardn", "unknown dataflow 'cardn' (did you mean 'cardan'?)"},
      {"run --down-schedule sideways", "--down-schedule 'sideways'"},
      {"run --tp 5", "tp"},
      // An unknown shipped name lists the shipped ones (a missing YAML path still says "cannot open the file").
      {"run --model no-such-model", "--model: no model 'no-such-model'; shipped models: deepseek-v2-lite, "},
      {"run --model no/such/model.yaml", "cannot open the file"},
      // trn1 has no logical cores, so its lnc 1 is every run's there (tests/cli/trn1_models_cli_test.cpp); on
      // hardware with them a model deployed with another lnc is a choice to make.
      {"run --hw trn3 --set model.deployment.lnc=1", "pass --lnc to choose one (--lnc 2: the hardware's, --lnc 1: the model's)"},
      {"run --set core.sbuf.bytes_per_partition=40000", "does not fit"},
      {"run --set model.moe.top_kk=2", "did you mean"},
      {"compare --dataflows dense,nope", "unknown dataflow 'nope'"},
  });
}

}  // namespace
