// Runs the built binary on `stasim validate` and `stasim calibrate`: the calibrated config's fidelity (targets
// that pass stay within tolerance; the documented misses are still misses, so a model change that fixes one
// shows up here and the docs get updated), bad reference files, and a fit that does not converge.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

using Outcome = stasim::test::Output;
using stasim::test::run_stasim;

fs::path scratch() {
  // One folder per process: ctest runs the tests of this file in parallel processes.
  fs::path dir = fs::temp_directory_path() / ("stasim_calibration_cli." + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string source(const std::string& path) { return std::string(STASIM_SOURCE_DIR) + "/" + path; }

// The shipped reference with `from` replaced by `to`.
std::string reference_with(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(source("configs/reference/published.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p.string();
}

// The calibrated config's outcome per target. Targets the model meets must stay within tolerance; the misses
// are structural (README "Fidelity", known gaps) and are asserted to remain misses until the structures that
// cause them are modelled (then this test and the README's table change together).
TEST(ValidateCli, CalibratedPredictionsStayWhereTheFidelityTableSays) {
  const std::string json = (scratch() / "validate.json").string();
  Outcome o = run_stasim("validate --quiet --report-only --json " + json);
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json doc;
  std::ifstream(json) >> doc;
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& t : doc["targets"]) by_id[t["id"].get<std::string>()] = t;
  // 2 TPOT + 3 ablation steps + 4 profile metrics x 2 variants + 3 GpSimd times by rate + 2 HBM-read changes
  // + 1 step-time ratio + 2 six-layer TPOTs + the attention share = 22 targets.
  ASSERT_EQ(by_id.size(), 22u);
  // Every target within its tolerance (README Fidelity table) but two, with every fitted parameter inside its
  // documented range and none at a bound: GpSimd's time at (8, 384) is 13% low and at (2, 0) 21% high. The
  // measured three points split into ~385 us that does not move with d and ~440 us / d per lookup; the model's
  // fixed part is too small, so the fit takes the (8, 384) step's length from the per-lookup cost
  // (docs/fidelity.md "Known gaps": the hybrid is GpSimd-bound where the study measures it DMA-bound).
  const std::set<std::string> misses = {"profile6.gpsimd_active_us_by_rate[d8_r384]",
                                        "profile6.gpsimd_active_us_by_rate[d2_r0]"};
  for (const auto& [id, t] : by_id) EXPECT_EQ(t["pass"].get<bool>(), !misses.count(id)) << id << ": " << t.dump();
  EXPECT_LT(by_id["profile6.gpsimd_active_us_by_rate[d8_r384]"]["predicted"].get<double>(), 440 * 0.9);
  EXPECT_GT(by_id["profile6.gpsimd_active_us_by_rate[d2_r0]"]["predicted"].get<double>(), 603 * 1.1);
  // The six-layer pair is whole steps of a six-layer model (embedding, six layers, head, the host's 150 us):
  // both within 5% of 1.19 and 1.37 ms, and their ratio is the step-time ratio target.
  const double six8 = by_id["profile6.tpot_ms[d8_r384]"]["predicted"].get<double>();
  const double six2 = by_id["profile6.tpot_ms[d2_r0]"]["predicted"].get<double>();
  EXPECT_NEAR(six8, 1.19, 1.19 * 0.05);
  EXPECT_NEAR(six2, 1.37, 1.37 * 0.05);
  EXPECT_NEAR(by_id["profile6.step_time_ratio[d2_r0_vs_d8_r384]"]["predicted"].get<double>(), six2 / six8, 2e-3);
  // TPOT: both within ±5% (7.851 and 6.278 ms) with the documented DMA issue cost (900 ns on trn3), TensorE
  // minimum issue (64 cycles) and TensorE dI/dt throttle (half rate from low load, 3 us ramp) in force.
  EXPECT_NEAR(by_id["dense.tpot_ms"]["predicted"].get<double>(), 7.851, 7.851 * 0.05);
  EXPECT_NEAR(by_id["cardan.tpot_ms"]["predicted"].get<double>(), 6.278, 6.278 * 0.05);
  // Gather batching lowers TPOT, as measured (4.3%): a gather group's experts send their partial rows in one
  // exchange instead of two per expert, and GpSimd starts one call and one widening per four experts.
  EXPECT_GT(by_id["ablation.batching.reduction_vs_previous"]["predicted"].get<double>(), 0);
  // Without reuse only z is recomputed per expert (T depends on neither the expert nor its routing), and the table
  // is FP32: over six layers at (4, 256) reuse saves 597.3 - 507.7 = 89.6 us of TensorE time (70 published) and
  // the step 6.2% (4.9%); the FP32 reductions of the gathered rows are TensorE time both variants have.
  const double saved = by_id["profile6.tensor_active_us[hybrid_only]"]["predicted"].get<double>() -
                       by_id["profile6.tensor_active_us[reuse]"]["predicted"].get<double>();
  EXPECT_GT(saved, 0.0);
  EXPECT_LT(saved, 2 * 70.0);
  EXPECT_GT(by_id["profile6.tensor_active_us[reuse]"]["predicted"].get<double>(), 562 * 0.9);
  // Instruction counts are structural (no parameter moves them), over the six decoder layers (the LM head and
  // embedding are outside the profile window): a selection call and its uint8-index widening are two.
  // Unbatched: 6 layers x 2 cores x 8 experts x 2 projections = 192 calls = 384 (385 published). Batched,
  // ceil(8 / 2) = 4 experts per call: 6 x 2 x 2 groups x 2 projections = 48 calls = 96 (97 published).
  EXPECT_EQ(by_id["profile6.gpsimd_instructions[reuse]"]["predicted"].get<double>(), 384);
  EXPECT_EQ(by_id["profile6.gpsimd_instructions[reuse_and_batching]"]["predicted"].get<double>(), 96);
  // The HBM-read changes are bytes, per decode step of the full model (48 layers and the LM head, 155.6 MB per
  // rank at every (d, r)): 1267.6 / 1216.9 - 1 = +4.17% (0.042 published) and 1116.0 / 1267.6 - 1 = -11.96% (-0.12).
  EXPECT_NEAR(by_id["profile6.hbm_read_change[d8_r384_vs_d4_r256]"]["predicted"].get<double>(), 1267605504.0 / 1216880640 - 1, 1e-4);
  EXPECT_NEAR(by_id["profile6.hbm_read_change[d2_r0_vs_d8_r384]"]["predicted"].get<double>(), 1116020736.0 / 1267605504 - 1, 1e-4);
  EXPECT_EQ(doc["passed"].get<int>(), 20);

  // Facts are checked, never fitted. The down weights' DMA overlaps gate/up work almost entirely (over 80%
  // published); attention is 3.03% of Qwen3's decoder weights; the critical engine at (2, 0) is right (GpSimd)
  // and at (8, 384) not yet (GpSimd instead of DMA with the all-reduces' transfers: GpSimd's descriptor
  // generation for J_e and C_e, docs/fidelity.md "Known gaps"); every ablation step lowers TPOT, and batching cuts
  // GpSimd's instructions 4x and its time.
  std::map<std::string, nlohmann::json> facts;
  for (const auto& f : doc["facts"]) facts[f["id"].get<std::string>()] = f;
  ASSERT_EQ(facts.size(), 4u);
  EXPECT_TRUE(facts["fact.down_dma_overlap"]["holds"].get<bool>());
  EXPECT_EQ(facts["fact.down_dma_overlap"]["checks"][0]["expected"].get<std::string>(), ">= 80%");
  EXPECT_TRUE(facts["fact.attention_weights"]["holds"].get<bool>());
  EXPECT_EQ(facts["fact.attention_weights"]["checks"][0]["model"].get<std::string>(), "3.03%");
  EXPECT_FALSE(facts["fact.critical_engine"]["holds"].get<bool>());
  EXPECT_EQ(facts["fact.critical_engine"]["checks"][0]["model"].get<std::string>(), "gpsimd");
  EXPECT_EQ(facts["fact.critical_engine"]["checks"][1]["model"].get<std::string>(), "gpsimd");
  EXPECT_TRUE(facts["fact.mechanism_directions"]["holds"].get<bool>());
  EXPECT_TRUE(facts["fact.mechanism_directions"]["checks"][0]["holds"].get<bool>());
  // 384 / 96 = 4, inside [3.2, 4.8]; GpSimd time 521.3 < 601.7 us.
  EXPECT_EQ(facts["fact.mechanism_directions"]["checks"][1]["model"].get<std::string>(), "4");
  EXPECT_TRUE(facts["fact.mechanism_directions"]["checks"][2]["holds"].get<bool>());
}

// validate holds the model to the measurements: a target out of tolerance (or a fact that does not hold) is a
// failed check, exit 1, unless --report-only.
// The shipped calibration misses two targets and one fact (above): exit 1; the uncalibrated trn3 (documented
// and assumed values only) misses 14 targets and two facts: exit 1, unless --report-only.
TEST(ValidateCli, AMissIsAFailedCheckUnlessOnlyAReportIsAsked) {
  Outcome o = run_stasim("validate --quiet");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("check failed: 2 of 22 targets out of tolerance, 1 of 4 checked facts do not hold"));
  o = run_stasim("validate --quiet --hw trn3");
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("check failed: 14 of 22 targets out of tolerance, 2 of 4 checked facts do not hold"));
  o = run_stasim("validate --quiet --hw trn3 --report-only");
  EXPECT_EQ(o.code, 0) << o.text;
}

TEST(ValidateCli, TableNamesEveryTarget) {
  Outcome o = run_stasim("validate --report-only --hw trn3");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("dense.tpot_ms"));
  EXPECT_THAT(o.text, HasSubstr("profile6.gpsimd_instructions[reuse_and_batching]"));
  EXPECT_THAT(o.text, HasSubstr("targets within tolerance"));
}

TEST(ValidateCli, BadReferenceFilesAreInputErrors) {
  std::string p = reference_with("metric.yaml", "id: profile6.dma_active_us", "id: profile6.dma_activ_us");
  Outcome o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("unknown metric 'dma_activ_us' (did you mean 'dma_active_us'?)"));

  p = reference_with("dataflow.yaml", "dataflow: dense", "dataflow: densse");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no dataflow 'densse' (did you mean 'dense'?)"));

  p = reference_with("model.yaml", "model: qwen3-30b-a3b", "model: qwen9");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("model: no model 'qwen9'"));

  p = reference_with("missing.yaml", "    value: 7.851\n", "");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("missing required key 'targets[0].value'"));

  p = reference_with("variant.yaml", "values: {reuse: 385", "values: {reuse_only: 385");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no variant or representation 'reuse_only'"));

  p = reference_with("fact.yaml", "metric: down_dma_overlap", "metric: down_dma_overlaps");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("unknown fact metric 'down_dma_overlaps' (did you mean 'down_dma_overlap'?)"));

  p = reference_with("rep.yaml", "values: {d4_r256: 495", "values: {d4_r265: 495");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no variant or representation 'd4_r265'"));
  EXPECT_THAT(o.text, HasSubstr("did you mean 'd4_r256'?"));

  p = reference_with("pair.yaml", "values: {d2_r0_vs_d8_r384: 1.147}", "values: {d2_r0: 1.147}");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("a change or ratio is keyed 'a_vs_b'"));

  p = reference_with("fact-target.yaml", "targets: [ablation.hybrid_only.reduction_vs_dense,",
                     "targets: [ablation.hybrid_only.reduction_vs_dens,");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no target 'ablation.hybrid_only.reduction_vs_dens' in this file"));

  p = reference_with("engine.yaml", "equals: gpsimd}", "equals: gpsmid}");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no engine 'gpsmid' (did you mean 'gpsimd'?)"));

  p = reference_with("bound.yaml", "at_least: 0.80", "at_least: 80");
  o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("at_least"));
  EXPECT_THAT(o.text, HasSubstr("a share must be between 0 and 1"));
}

TEST(ValidateCli, TablePrintsTheCheckedFacts) {
  Outcome o = run_stasim("validate --report-only");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("\nfacts\n"));
  EXPECT_THAT(o.text, testing::ContainsRegex("fact.down_dma_overlap +expected >= 80% +model [0-9.]+% +holds"));
  EXPECT_THAT(o.text, testing::ContainsRegex("fact.critical_engine\\[1\\] +expected gpsimd +model gpsimd +holds"));
  EXPECT_THAT(o.text, testing::ContainsRegex("fact.mechanism_directions\\[1\\] +expected in \\[3.2, 4.8\\] +model 4 +holds"));
}

// A target whose run the model cannot build is bad input naming the target, not a failed simulation.
TEST(ValidateCli, ATargetTheModelCannotRunNamesItself) {
  std::string p = reference_with("d3.yaml", "d2_r0: {d: 2, r: 0}", "d2_r0: {d: 3, r: 0}");
  Outcome o = run_stasim("validate --reference " + p);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("profile6.gpsimd_active_us_by_rate[d2_r0]"));
  EXPECT_THAT(o.text, HasSubstr("d = 3 does not divide hidden H = 2048"));
}

TEST(CalibrateCli, AFitThatDoesNotConvergeWritesNothing) {
  fs::path dir = scratch() / "hw";
  fs::create_directories(dir);
  fs::copy_file(source("configs/hw/trn3.yaml"), dir / "trn3.yaml", fs::copy_options::overwrite_existing);
  fs::path out = dir / "trn3-fit.yaml";
  fs::remove(out);
  Outcome o = run_stasim("calibrate --quiet --max-evaluations 3 --hw " + (dir / "trn3.yaml").string() + " --out " +
                         out.string());
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("calibration did not converge"));
  EXPECT_THAT(o.text, HasSubstr("nothing written"));
  EXPECT_FALSE(fs::exists(out));
}

// An overlay may be written anywhere (its `base:` names a shipped config by name, config_paths_test.cpp): a folder
// other than the base's is no longer refused, so this short fit gets as far as not converging.
TEST(CalibrateCli, TheOverlayMayBeWrittenAnywhere) {
  Outcome o = run_stasim("calibrate --quiet --max-evaluations 3 --out " + (scratch() / "elsewhere.yaml").string());
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("calibration did not converge"));
}

// calibrate --set fixes a key of the base for the whole fit (a structural what-if) and writes it into the overlay,
// so validating the overlay alone reproduces the fit's predictions. A short fit: the reference cut to its two
// TPOT targets (the shipped file up to the ablation, so its header, variants and representations stay).
TEST(CalibrateCli, FixedOverridesHoldForTheWholeFitAndGoIntoTheOverlay) {
  std::ifstream in(source("configs/reference/published.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t cut = text.find("  # Ablation on the full model");
  ASSERT_NE(cut, std::string::npos);
  const fs::path ref = scratch() / "tpot_only.yaml";
  std::ofstream(ref) << text.substr(0, cut);
  const fs::path overlay = scratch() / "gpsimd_exchanges.yaml", fit_json = scratch() / "fit.json",
                 check_json = scratch() / "check.json";
  const std::string set = " --set core.dma.exchange_engine=gpsimd_dma";
  // Bad input first, before any simulation: a fitted parameter, an unknown key, a bad value.
  Outcome o = run_stasim("calibrate -q --reference " + ref.string() + " --set core.link.latency_ns=5 --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--set core.link.latency_ns=5: core.link.latency_ns is a fitted parameter (link.latency_ns, "
                                "between 100 and 2000)"));
  o = run_stasim("calibrate -q --reference " + ref.string() + " --set core.dma.exchange_engin=dma --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("no key 'core.dma.exchange_engin' (did you mean 'core.dma.exchange_engine'?)"));
  o = run_stasim("calibrate -q --reference " + ref.string() + " --set core.dma.exchange_engine=pool --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("core.dma.exchange_engine: must be dma or gpsimd_dma, got 'pool'"));
  EXPECT_FALSE(fs::exists(overlay));

  o = run_stasim("calibrate -q --reference " + ref.string() + set + " --out " + overlay.string() + " --json " + fit_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream overlay_in(overlay);
  std::string written((std::istreambuf_iterator<char>(overlay_in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(written, HasSubstr("# Fitted with fixed overrides of the base (stasim calibrate --set)"));
  EXPECT_THAT(written, HasSubstr("#   core.dma.exchange_engine=gpsimd_dma"));
  EXPECT_THAT(written, HasSubstr("  dma:\n    exchange_engine: gpsimd_dma\n"));
  // The overlay alone (no --set) predicts what the fit reported, to the microsecond of TPOT.
  o = run_stasim("validate -q --report-only --reference " + ref.string() + " --hw " + overlay.string() + " --json " +
                 check_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  nlohmann::json fit, check;
  std::ifstream(fit_json) >> fit;
  std::ifstream(check_json) >> check;
  ASSERT_EQ(fit["targets"].size(), 2u);
  ASSERT_EQ(check["targets"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(check["targets"][i]["id"], fit["targets"][i]["id"]);
    EXPECT_NEAR(check["targets"][i]["predicted"].get<double>(), fit["targets"][i]["predicted"].get<double>(), 1e-6);
  }
  // And the fixed key mattered: the same overlay without it (exchanges back on the shared DMA) predicts another
  // cardan TPOT.
  o = run_stasim("validate -q --report-only --reference " + ref.string() + " --hw " + overlay.string() +
                 " --set core.dma.exchange_engine=dma --json " + check_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream(check_json) >> check;
  EXPECT_GT(std::fabs(check["targets"][1]["predicted"].get<double>() - fit["targets"][1]["predicted"].get<double>()), 1e-3);
}

// calibrate --free fits a key the declared parameters leave fixed, between the given bounds, and reports and writes
// it like them. The what-if: no hardware DGE (every routed load's descriptors made by GpSimd, so the software-DGE
// descriptor cost matters to both TPOTs), that cost fitted between 1 and 64 cycles. The same two-target reference
// as above (a fit of about 3 s).
TEST(CalibrateCli, AFreedKeyIsFittedReportedAndWrittenLikeTheDeclaredParameters) {
  std::ifstream in(source("configs/reference/published.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t cut = text.find("  # Ablation on the full model");
  ASSERT_NE(cut, std::string::npos);
  const fs::path ref = scratch() / "tpot_only_free.yaml";
  std::ofstream(ref) << text.substr(0, cut);
  const fs::path overlay = scratch() / "swdge_fit.yaml", fit_json = scratch() / "free_fit.json",
                 check_json = scratch() / "free_check.json";
  const std::string key = "core.engines.gpsimd.swdge_descriptor_cycles";
  const std::string what_if = " --set core.dma.hwdge_instances=0 --free " + key + "=1:64";
  // Bad input before any simulation, nothing written.
  Outcome o = run_stasim("calibrate -q --reference " + ref.string() + " --free " + key + "=64:1 --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--free " + key + "=64:1: the lower bound must be below the upper bound"));
  o = run_stasim("calibrate -q --reference " + ref.string() + " --free core.link.latency_ns=100:900 --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("core.link.latency_ns is a declared parameter"));
  EXPECT_FALSE(fs::exists(overlay));

  o = run_stasim("calibrate --reference " + ref.string() + what_if + " --out " + overlay.string() + " --json " +
                 fit_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_THAT(o.text, HasSubstr("\n" + key + " "));  // the parameter table on stdout lists it
  nlohmann::json fit, check;
  std::ifstream(fit_json) >> fit;
  const std::size_t declared = 7;  // sim/studies/calibration_fit.cpp
  ASSERT_EQ(fit["parameters"].size(), declared + 1);
  const nlohmann::json& freed = fit["parameters"][declared];
  EXPECT_EQ(freed["name"], key);
  EXPECT_EQ(freed["low"].get<double>(), 1);
  EXPECT_EQ(freed["high"].get<double>(), 64);
  const double value = freed["value"].get<double>();
  EXPECT_GE(value, 1);
  EXPECT_LE(value, 64);
  std::ifstream overlay_in(overlay);
  std::string written((std::istreambuf_iterator<char>(overlay_in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(written, HasSubstr("# Fit report: 8 parameters, 2 targets"));
  EXPECT_THAT(written, HasSubstr("# Fitted with extra parameters (stasim calibrate --free)"));
  EXPECT_THAT(written, HasSubstr("#   " + key + "=1:64"));
  EXPECT_THAT(written, HasSubstr("    gpsimd:\n"));
  EXPECT_THAT(written, HasSubstr("      swdge_descriptor_cycles: "));
  // The overlay alone reproduces the fit's predictions.
  o = run_stasim("validate -q --report-only --reference " + ref.string() + " --hw " + overlay.string() + " --json " +
                 check_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream(check_json) >> check;
  ASSERT_EQ(check["targets"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_NEAR(check["targets"][i]["predicted"].get<double>(), fit["targets"][i]["predicted"].get<double>(), 1e-6);
  // And the freed key is the one in it: another descriptor cost (twice the fitted one, or half when that is past the
  // bound) predicts another dense TPOT (every dense weight load's descriptors are GpSimd work in this what-if).
  const double other = value * 2 <= 64 ? value * 2 : value / 2;
  o = run_stasim("validate -q --report-only --reference " + ref.string() + " --hw " + overlay.string() + " --set " + key +
                 "=" + std::to_string(other) + " --json " + check_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream(check_json) >> check;
  EXPECT_GT(std::fabs(check["targets"][0]["predicted"].get<double>() - fit["targets"][0]["predicted"].get<double>()), 1e-3);
}

// A freed key that takes only integers (a queue count) is searched over integers: every point of the search, not
// only the written value, is whole (core.dma.exchange_queues=1.25 would be refused by the hardware config, exit
// 2). 40 evaluations reach it (declared after the six); the search is still improving then, so the run ends
// "did not converge" (exit 1), having simulated it.
TEST(CalibrateCli, AFreedCountIsSearchedOverIntegers) {
  std::ifstream in(source("configs/reference/published.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path ref = scratch() / "tpot_only_count.yaml";
  std::ofstream(ref) << text.substr(0, text.find("  # Ablation on the full model"));
  Outcome o = run_stasim("calibrate --reference " + ref.string() + " --free core.dma.exchange_queues=1:3 " +
                         "--max-evaluations 40 --out " + (scratch() / "count.yaml").string());
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_THAT(o.text, HasSubstr("calibration did not converge"));
  EXPECT_THAT(o.text, testing::Not(HasSubstr("exchange_queues: ")));
}

// --option NAME=VALUE runs every reference run with a kernel variant (the names of sweep's option.* axes):
// validate predicts with it, calibrate fits with it and lists it in the overlay's header (the overlay is a hardware
// file, so validate needs the same --option to reproduce the fit). The two-target reference again.
TEST(CalibrateCli, ARunOptionAppliesToEveryReferenceRunOfTheFitAndTheCheck) {
  std::ifstream in(source("configs/reference/published.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t cut = text.find("  # Ablation on the full model");
  ASSERT_NE(cut, std::string::npos);
  const fs::path ref = scratch() / "tpot_only_option.yaml";
  std::ofstream(ref) << text.substr(0, cut);
  const fs::path overlay = scratch() / "fused_exchange.yaml", fit_json = scratch() / "option_fit.json",
                 check_json = scratch() / "option_check.json";
  const std::string base = "validate -q --report-only --reference " + ref.string();
  // Bad input, exit 2: what the reference sets itself, a bad value, an unknown name, one given twice, and a
  // variant the reference's model cannot take (Qwen3 has no shared experts to fuse), from validate and calibrate.
  const struct {
    const char* option;
    const char* message;
  } bad[] = {
      {"reuse=0", "--option reuse=0: the reference sets reuse itself"},
      {"fused_gate_up_exchange=2", "--option fused_gate_up_exchange=2: expected 0 or 1"},
      {"fused_gate_up_exchang=1", "did you mean 'option.fused_gate_up_exchange'?"},
      {"fuse_projections=1", "--fuse-projections: nothing fuses on Qwen3-30B-A3B"},
  };
  for (const auto& b : bad) {
    Outcome o = run_stasim(base + " --option " + b.option);
    EXPECT_EQ(o.code, 2) << b.option << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(b.message)) << b.option;
  }
  Outcome o = run_stasim(base + " --option fused_gate_up_exchange=1 --option fused_gate_up_exchange=0");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("fused_gate_up_exchange is given twice"));
  o = run_stasim("calibrate -q --reference " + ref.string() + " --option fuse_projections=1 --out " + overlay.string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("nothing fuses on Qwen3-30B-A3B"));
  EXPECT_FALSE(fs::exists(overlay));

  // validate: half the per-expert partial-sum exchanges make the hybrid faster on the same hardware, dense too
  // (with group_exchange=0: batched gathers' groups otherwise send their rows together already). Two options at
  // once are both taken.
  auto predicted = [&](const std::string& args) {
    Outcome r = run_stasim(base + args + " --json " + check_json.string());
    EXPECT_EQ(r.code, 0) << r.text;
    nlohmann::json doc;
    std::ifstream(check_json) >> doc;
    return doc;
  };
  nlohmann::json apart = predicted(" --option group_exchange=0"),
                 fused = predicted(" --option group_exchange=0 --option fused_gate_up_exchange=1");
  // On the shipped calibration 6.255 -> 6.058 ms.
  EXPECT_LT(fused["targets"][1]["predicted"].get<double>(), apart["targets"][1]["predicted"].get<double>() - 0.1);
  EXPECT_LT(fused["targets"][0]["predicted"].get<double>(), apart["targets"][0]["predicted"].get<double>());

  // calibrate with it: the overlay's header says so, and validate with the same option reproduces the fit.
  o = run_stasim("calibrate -q --reference " + ref.string() + " --option fused_gate_up_exchange=on --out " +
                 overlay.string() + " --json " + fit_json.string());
  ASSERT_EQ(o.code, 0) << o.text;
  std::ifstream overlay_in(overlay);
  std::string written((std::istreambuf_iterator<char>(overlay_in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(written, HasSubstr("# Fitted with run options on every reference run (stasim calibrate --option)"));
  EXPECT_THAT(written, HasSubstr("--option fused_gate_up_exchange=1"));  // written in its one spelling
  nlohmann::json fit;
  std::ifstream(fit_json) >> fit;
  nlohmann::json check = predicted(" --hw " + overlay.string() + " --option fused_gate_up_exchange=1");
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_NEAR(check["targets"][i]["predicted"].get<double>(), fit["targets"][i]["predicted"].get<double>(), 1e-6);
}

TEST(CalibrateCli, AnOutputInAMissingFolderIsBadInput) {
  Outcome o = run_stasim("calibrate --quiet --out /nonexistent_folder/fit.yaml");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--out /nonexistent_folder/fit.yaml: no folder '/nonexistent_folder'"));
}

}  // namespace
