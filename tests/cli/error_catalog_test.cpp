// The catalog of bad input: every kind of file a user writes (hardware config and overlay, model, schedule,
// sweep, routes in YAML/JSON/CSV, the reference figures), --set overrides and bad command-line values, each
// broken one way (YAML syntax, unknown key, wrong type, out of range, inconsistent shapes, unknown op, cycle,
// overflow, deadlock). Each case runs the binary and expects exit code 2, one "error:" report that names the
// file with line:column and the key path (or the op, or the option), and no line printed twice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;

// A small, valid model: the cases below break one line of it (line numbers: cli_runner.hpp).
const std::string& kModel = stasim::test::kTinyModel;

// A valid reference file with one target (line numbers refer to this text).
const std::string kReference =
    "source: catalog\n"                       // 1
    "hardware: trn3\n"                        // 2
    "model: qwen3-30b-a3b\n"                  // 3
    "deployment: {tp: 4, lnc: 2, batch: 1}\n" // 4
    "variants:\n"                             // 5
    "  reuse: {reuse_shared_projections: true, batch_gathers: false}\n"  // 6
    "targets:\n"                              // 7
    "  - id: dense.tpot_ms\n"                 // 8
    "    dataflow: dense\n"                   // 9
    "    value: 7.851\n";                     // 10

struct Case {
  std::string name;
  std::string file;     // written to a temp file named after the case; "" = no file
  std::string command;  // {file}: that file; {trn3}: configs/hw/trn3.yaml; {out}: a scratch output path
  std::vector<std::string> expected;  // fragments of the output, with the same placeholders
};

using stasim::test::replace_once;

std::string model_with(const std::string& from, const std::string& to) { return replace_once(kModel, from, to); }
std::string reference_with(const std::string& from, const std::string& to) { return replace_once(kReference, from, to); }

const char* const kRunModel = "run --quiet --layers 1 --model {file}";
const char* const kSchedule = "schedule --quiet --schedule {file}";
const char* const kHw = "schedule --quiet --hw {file}";
const char* const kSweep = "sweep --layers 1 --jobs 1 --out {out}.csv --config {file}";
const char* const kValidate = "validate --quiet --reference {file}";

std::vector<Case> catalog() {
  return {
      // ---- hardware config: an overlay of trn3 (base:), or a whole file
      {"hw_yaml_syntax", "base: {trn3}\ncore:\n  dma: {issue_ns: 400\n", kHw,
       {"{file}:4:1: malformed YAML"}},
      {"hw_unknown_key", "base: {trn3}\ncore:\n  dma:\n    isue_ns: 400\n", kHw,
       {"{file}:4:5: core.dma.isue_ns: not a key of the base config (did you mean 'core.dma.issue_ns'?)"}},
      {"hw_wrong_type", "base: {trn3}\ncore:\n  dma:\n    issue_ns: fast\n", kHw,
       {"{file}:4:5: core.dma.issue_ns: expected a number, got 'fast'"}},
      {"hw_out_of_range", "base: {trn3}\ncore:\n  psum:\n    banks: 0\n", kHw,
       {"{file}:4:5: core.psum.banks: must be between 1 and 64"}},
      {"hw_negative", "base: {trn3}\ncollective:\n  alpha_ns: -3\n", kHw,
       {"{file}:3:3: collective.alpha_ns: must not be negative"}},
      {"hw_clock_overflows_time", "base: {trn3}\ncore:\n  engines:\n    tensor:\n      clock_ghz: 1e-300\n", kHw,
       {"{file}:5:7: core.engines.tensor.clock_ghz: must be at least 0.01"}},
      {"hw_recursive_alias", "base: {trn3}\nname: &x [*x]\n", kHw,
       {"{file}:2:11: an alias inside its own anchor (the document would be infinitely deep)"}},
      {"hw_integer_overflow", "base: {trn3}\ncore:\n  sbuf:\n    bytes_per_partition: 99999999999999999999\n", kHw,
       {"{file}:4:5: core.sbuf.bytes_per_partition: '99999999999999999999' is out of range"}},
      {"hw_lnc_beyond_cores", "base: {trn3}\nlnc: 9\n", kHw,
       {"{file}:2:1: lnc: must be between 1 and device.cores"}},
      {"hw_reserved_beyond_sbuf", "base: {trn3}\ncore:\n  sbuf:\n    reserved_bytes_per_partition: 1000000\n", kHw,
       {"{file}:4:5: core.sbuf.reserved_bytes_per_partition: must be smaller than bytes_per_partition"}},
      {"hw_duplicate_key", "base: {trn3}\ncore:\n  dma:\n    issue_ns: 400\n    issue_ns: 500\n", kHw,
       {"{file}:5:5: core.dma.issue_ns: duplicate key (first at line 4)"}},
      // The DMA efficiency knee was replaced by the time per descriptor: an old config that still sets it is told so.
      {"hw_removed_knee", "base: {trn3}\ncore:\n  dma:\n    knee_bytes_per_partition: 2048\n", kHw,
       {"{file}:4:5: core.dma.knee_bytes_per_partition: not a key of the base config"}},
      {"hw_zero_descriptor_time", "base: {trn3}\ncore:\n  dma:\n    descriptor_ns: 0\n", kHw,
       {"{file}:4:5: core.dma.descriptor_ns: must be positive"}},
      {"hw_negative_swdge_cost", "base: {trn3}\ncore:\n  engines:\n    gpsimd:\n      swdge_descriptor_cycles: -1\n", kHw,
       {"{file}:5:7: core.engines.gpsimd.swdge_descriptor_cycles: must be positive"}},
      {"hw_zero_gather_word_rate", "base: {trn3}\ncore:\n  engines:\n    gpsimd:\n      gather_word_cycles: 0\n", kHw,
       {"{file}:5:7: core.engines.gpsimd.gather_word_cycles: must be positive"}},
      {"hw_zero_throttle_window", "base: {trn3}\ncore:\n  engines:\n    tensor:\n      throttle_window_ns: 0\n", kHw,
       {"{file}:5:7: core.engines.tensor.throttle_window_ns: must be positive"}},
      {"hw_zero_throttle_start", "base: {trn3}\ncore:\n  engines:\n    tensor:\n      throttle_start_fraction: 0\n", kHw,
       {"{file}:5:7: core.engines.tensor.throttle_start_fraction: must be positive"}},
      {"hw_section_not_a_mapping", "base: {trn3}\ncore: 5\n", kHw, {"{file}:2:7: core: expected a mapping, got '5'"}},
      {"hw_base_missing", "base: no-such-base.yaml\n", kHw, {"{file}:1:7: base: no file", "no-such-base.yaml"}},
      {"hw_base_cycle", "base: hw_base_cycle\n", kHw, {"{file}:1:7: base: 'hw_base_cycle' is part of a base cycle"}},
      {"hw_list_as_key", "base: {trn3}\n[a, b]: 1\n", kHw, {"{file}:2:1: (top level): a key must be a plain name, got a list"}},
      {"hw_empty_file", "", kHw, {"{file}: expected a YAML mapping at the top level"}},
      {"hw_missing_file", "", "schedule --quiet --hw /nonexistent-dir/hw.yaml", {"/nonexistent-dir/hw.yaml: cannot open the file"}},

      // ---- --set overrides
      {"set_unknown_key", "", "schedule --quiet --set core.dma.isue_ns=3",
       {"--set core.dma.isue_ns=3", "has no key 'core.dma.isue_ns' (did you mean 'core.dma.issue_ns'?)"}},
      {"set_wrong_type", "", "schedule --quiet --set core.psum.banks=many",
       {"(from --set): core.psum.banks: expected a non-negative integer, got 'many'"}},
      {"set_no_value", "", "schedule --quiet --set core.dma.issue_ns", {"--set core.dma.issue_ns: expected key.path=value"}},
      {"set_duplicate_key", "", "schedule --quiet --set 'collective={alpha_ns: 1, alpha_ns: 2}'",
       {"trn3.yaml (from --set): collective.alpha_ns: duplicate key"}},
      {"set_not_a_section", "", "schedule --quiet --set name.x=3", {"--set name.x=3: 'name' is not a section"}},
      {"set_model_out_of_range", "", "run --quiet --layers 1 --set model.moe.top_k=0",
       {"(from --set): moe.top_k: must be between 1 and moe.experts = 128, got 0"}},

      // ---- model config
      {"model_yaml_syntax", model_with("  top_k: 2\n", "  top_k: [2\n"), kRunModel, {"{file}:", "malformed YAML"}},
      {"model_unknown_key", model_with("  activation: swiglu\n", "  activaton: swiglu\n"), kRunModel,
       {"{file}:9:3: moe.activaton: unknown key (did you mean 'moe.activation'?)"}},
      {"model_wrong_type", model_with("layers: 2\n", "layers: two\n"), kRunModel,
       {"{file}:2:1: layers: expected an integer, got 'two'"}},
      {"model_bad_enum", model_with("  activation: swiglu\n", "  activation: swiglo\n"), kRunModel,
       {"{file}:9:3: moe.activation: 'swiglo' is not one of swiglu, geglu, relu2 (did you mean 'swiglu'?)"}},
      {"model_top_k_beyond_experts", model_with("  top_k: 2\n", "  top_k: 17\n"), kRunModel,
       {"{file}:7:3: moe.top_k: must be between 1 and moe.experts = 16, got 17"}},
      {"model_tp_not_dividing_intermediate", model_with("  intermediate: 768\n", "  intermediate: 770\n"), kRunModel,
       {"{file}:18:3: deployment.tp: tp = 4 does not divide moe.intermediate (I) = 770"}},
      {"model_kv_heads_not_dividing", model_with("  kv_heads: 4\n", "  kv_heads: 5\n"), kRunModel,
       {"{file}:13:3: attention.kv_heads: must divide attention.q_heads = 16"}},
      {"model_layer_pattern_length", model_with("layers: 2\n", "layers: 2\nlayer_pattern: EEE\n"), kRunModel,
       {"{file}:3:1: layer_pattern: has 3 characters but layers = 2"}},
      {"model_dimension_overflow", model_with("hidden: 2048\n", "hidden: 4611686018427387904\n"), kRunModel,
       {"{file}:3:1: hidden: must be at most 131072, got 4611686018427387904"}},
      {"model_missing_section", model_with("router:\n  kind: softmax\n", ""), kRunModel,
       {"{file}:1:1: (top level): missing required section 'router'"}},

      // ---- hand-written schedule
      {"schedule_yaml_syntax", "ops:\n  - {name: a, engine: vector, duration_ns: 5\n", kSchedule,
       {"{file}:3:1: malformed YAML"}},
      {"schedule_unknown_key", "ops:\n  - {name: a, engine: vector, duration_ns: 5, depz: [b]}\n", kSchedule,
       {"{file}:2:47: ops[0].depz: unknown key (did you mean 'ops[0].deps'?)"}},
      {"schedule_wrong_type", "ops:\n  - {name: mm, engine: tensor, k: big, m: 128, n: 64}\n", kSchedule,
       {"{file}:2:32: ops[0].k: expected a non-negative integer, got 'big'"}},
      {"schedule_unknown_engine", "ops:\n  - {name: a, engine: vectr, duration_ns: 5}\n", kSchedule,
       {"{file}:2:15: ops[0].engine: unknown engine 'vectr' (did you mean 'vector'?)"}},
      {"schedule_unknown_dep", "ops:\n  - {name: load, engine: dma, bytes: 64}\n  - {name: b, engine: vector, duration_ns: 5, deps: [lod]}\n",
       kSchedule, {"{file}:3: op 'b': deps: unknown op 'lod' (did you mean 'load'?)"}},
      {"schedule_cycle",
       "ops:\n  - {name: a, engine: vector, duration_ns: 5, deps: [b]}\n  - {name: b, engine: scalar, duration_ns: 5, deps: [a]}\n",
       kSchedule, {"{file}:2: op 'a': dependency cycle: 'a' -> 'b' -> 'a'"}},
      {"schedule_dep_later_in_queue",
       "ops:\n  - {name: a, engine: vector, duration_ns: 5, deps: [b]}\n  - {name: b, engine: vector, duration_ns: 5}\n",
       kSchedule, {"{file}:2: op 'a': depends on 'b', which comes later in the same vector queue"}},
      {"schedule_psum_bank_beyond_banks", "ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 8}\n"
       "  - {name: cp, engine: vector, kind: tensor_copy, free: 64, deps: [mm], releases_psum_bank: 8}\n",
       kSchedule, {"{file}:2: op 'mm': psum_bank 8 does not exist (8 banks)"}},
      {"schedule_partitions_beyond_array", "ops:\n  - {name: a, engine: vector, kind: tensor_copy, free: 64, partitions: 256}\n",
       kSchedule, {"{file}:2: op 'a': partitions = 256 must be between 1 and 128"}},
      {"schedule_buffer_beyond_sbuf", "buffers:\n  - {name: w, bytes_per_partition: 300000}\nops:\n"
       "  - {name: a, engine: dma, bytes: 64, buffers: [w]}\n",
       kSchedule, {"{file}:2: buffer 'w': 300000 bytes per partition do not fit SBUF (245496 usable bytes per partition)"}},
      {"schedule_psum_bank_overflow", "ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 4096, psum_bank: 0}\n"
       "  - {name: cp, engine: vector, kind: tensor_copy, free: 64, deps: [mm], releases_psum_bank: 0}\n",
       kSchedule, {"{file}:2: op 'mm': n = 4096 FP32 outputs need 16384 bytes per partition; a PSUM bank holds 2048"}},
      {"schedule_unknown_dge_mode", "ops:\n  - {name: w, engine: dma, bytes: 64, dge: sw}\n", kSchedule,
       {"{file}:2:39: ops[0].dge: unknown descriptor-generation mode 'sw'"}},
      {"schedule_gather_elements_per_index_beyond_elements",
       "ops:\n  - {name: g, engine: gpsimd, kind: gather, free: 4, elements_per_index: 8}\n", kSchedule,
       {"{file}:2: op 'g': elements_per_index = 8 must be between 1 and the 4 elements gathered per partition (free)"}},
      {"schedule_bytes_overflow", "ops:\n  - {name: a, engine: dma, bytes: 18446744073709551616}\n", kSchedule,
       {"{file}:2:28: ops[0].bytes: '18446744073709551616' is out of range (0..18446744073709551615)"}},
      {"schedule_duration_overflow", "ops:\n  - {name: a, engine: vector, duration_ns: 1e300}\n", kSchedule,
       {"{file}:2:31: ops[0].duration_ns: must be positive and at most 1e9 (one second)"}},
      {"schedule_psum_never_released", "ops:\n  - {name: mm, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 0}\n",
       kSchedule, {"{file}:2: op 'mm': PSUM group 'mm' on bank 0 is never released"}},
      {"schedule_release_without_group", "ops:\n  - {name: cp, engine: vector, kind: tensor_copy, free: 64, releases_psum_bank: 1}\n",
       kSchedule, {"{file}:2:", "ops[0].releases_psum_bank: no PSUM group is open on bank 1 of core 0"}},
      {"schedule_group_changes_bank",
       "ops:\n  - {name: a1, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 0, psum_group: a}\n"
       "  - {name: a2, engine: tensor, k: 128, m: 128, n: 64, psum_bank: 1, psum_group: a}\n"
       "  - {name: cp, engine: vector, kind: tensor_copy, free: 64, deps: [a2], releases_psum_bank: 0}\n",
       kSchedule, {"{file}:3: op 'a2': accumulates into PSUM bank 1 of core 0, but its group 'a' holds bank 0 of core 0"}},
      {"schedule_engine_cannot_run_kind", "ops:\n  - {name: a, engine: vector, kind: matmul, k: 128, m: 128, n: 64}\n",
       kSchedule, {"{file}:2: op 'a': the vector engine cannot run 'matmul'"}},
      {"schedule_core_beyond_lnc", "ops:\n  - {name: a, engine: vector, duration_ns: 5, core: 3}\n", kSchedule,
       {"{file}:2: op 'a': core 3 does not exist"}},
      {"schedule_no_ops", "ops: []\n", kSchedule, {"{file}: the schedule has no ops"}},
      {"schedule_psum_deadlock",
       "ops:\n  - {name: mm1, engine: tensor, k: 128, m: 128, n: 512, psum_bank: 0}\n"
       "  - {name: mm2, engine: tensor, k: 128, m: 128, n: 512, psum_bank: 0}\n"
       "  - {name: r1, engine: tensor, duration_ns: 10, deps: [mm1], releases_psum_bank: 0}\n"
       "  - {name: r2, engine: tensor, duration_ns: 10, deps: [mm2], releases_psum_bank: 0}\n",
       kSchedule,
       {"deadlock: 3 of 4 ops never ran",
        "{file}:3: op 'mm2' (core 0 tensor): needs PSUM bank 0, held by group 'mm1' (from 'mm1') until 'r1' releases it",
        "wait cycle: 'mm2' waits for 'r1' (PSUM bank), 'r1' waits for 'mm2' (queue order)"}},

      // ---- sweep config
      {"sweep_unknown_key", "modls: [qwen3-30b-a3b]\n", kSweep,
       {"{file}:1:1: modls: unknown key (did you mean 'models'?)"}},
      {"sweep_wrong_type", "layers: two\n", kSweep, {"{file}:1:9: layers: expected an integer, got 'two'"}},
      {"sweep_zero_step", "r: \"0:256:0\"\n", kSweep, {"{file}:1:4: r '0:256:0': the step of '0:256:0' must be positive"}},
      {"sweep_range_overflow", "r: \"0:9223372036854775807:1\"\n", kSweep,
       {"{file}:1:4: r '0:9223372036854775807:1': '0:9223372036854775807:1' has"}},
      {"sweep_vary_not_a_mapping", "vary: core.dma.engines\n", kSweep,
       {"{file}:1:7: vary: expected a mapping of config key -> values"}},
      {"sweep_duplicate_key", "d: [4]\nd: [8]\n", kSweep, {"{file}:2:1: d: duplicate key (first at line 1)"}},
      {"sweep_vary_option_value", "vary:\n  option.reuse: [maybe]\n", kSweep,
       {"{file}:2:17: vary.option.reuse: --vary option.reuse=maybe: expected 0 or 1"}},

      // ---- routes files (YAML, JSON, CSV) for run --routes
      {"routes_yaml_expert_out_of_range", "ids:\n  - [0, 1, 2, 3, 4, 5, 6, 200]\n",
       "run --quiet --layers 1 --routes {file}.yaml", {"{file}.yaml:2:5: row 0 slot 7: expert id 200 is outside [0, 128)"}},
      {"routes_yaml_repeated_expert", "ids:\n  - [0, 1, 2, 3, 4, 5, 6, 6]\n",
       "run --quiet --layers 1 --routes {file}.yaml", {"{file}.yaml:2:5: row 0 slot 7: expert 6 appears twice in this token's top-k"}},
      {"routes_yaml_unknown_key", "idz:\n  - [0, 1, 2, 3, 4, 5, 6, 7]\n",
       "run --quiet --layers 1 --routes {file}.yaml", {"{file}.yaml:1:1: idz: unknown key (did you mean 'ids'?)"}},
      {"routes_json_malformed", "{\"ids\": [[0, 1, 2, 3, 4, 5, 6, 7]\n",
       "run --quiet --layers 1 --routes {file}.json", {"{file}.json: malformed JSON"}},
      {"routes_csv_not_an_integer", "0,1,2,x,4,5,6,7\n",
       "run --quiet --layers 1 --routes {file}.csv", {"{file}.csv:1: field 4: expert id 'x' is not an integer"}},
      {"routes_csv_wrong_top_k", "0,1,2,3,4,5,6\n",
       "run --quiet --layers 1 --routes {file}.csv", {"{file}.csv: 7 experts per token but"}},

      // ---- reference figures (stasim validate --reference)
      {"reference_unknown_metric", reference_with("dense.tpot_ms", "dense.tpot_mss"), kValidate,
       {"{file}:8:5: targets[0].id: unknown metric 'tpot_mss' (did you mean 'tpot_ms'?)"}},
      {"reference_wrong_type", reference_with("value: 7.851", "value: fast"), kValidate,
       {"{file}:10:5: targets[0].value: expected a number, got 'fast'"}},
      {"reference_unknown_model", reference_with("model: qwen3-30b-a3b", "model: qwen9"), kValidate,
       {"{file}:3:1: model: no model 'qwen9'"}},
      {"reference_unknown_dataflow", reference_with("dataflow: dense", "dataflow: dens"), kValidate,
       {"{file}:9:5: targets[0].dataflow: no dataflow 'dens' (did you mean 'dense'?)"}},
      {"reference_out_of_range", reference_with("{tp: 4, lnc: 2, batch: 1}", "{tp: 4, lnc: 2, batch: 0}"), kValidate,
       {"{file}:4:", "deployment.batch: must be positive"}},

      // ---- command-line values
      {"cli_d_not_dividing_hidden", "", "run --quiet --layers 1 --d 3", {"d = 3 does not divide hidden H = 2048"}},
      {"cli_batch_out_of_range", "", "run --quiet --layers 1 --batch 0", {"--batch 0: must be between 1 and"}},
      {"cli_negative_layers", "", "run --quiet --layers -1", {"--layers -1: must not be negative"}},
      {"cli_unknown_dataflow", "", "run --quiet --layers 1 --dataflow dens", {"unknown dataflow 'dens' (did you mean 'dense'?)"}},
      {"cli_shard_beyond_count", "", "sweep --shard 3/2 --out {out}.csv", {"--shard '3/2': expected i/N with 0 <= i < N"}},
      {"cli_zero_tp_is_not_the_default", "", "run --quiet --layers 1 --tp 0", {"deployment.tp: must be positive, got 0"}},
      {"cli_layers_beyond_model", "", "run --quiet --layers 49", {"--layers 49: Qwen3-30B-A3B has 48 layers (0 = all)"}},
      {"cli_sweep_negative_layers", "", "sweep --layers -2 --out {out}.csv",
       {"error: --layers -2: must be between 0 and 65536\n"}},
      {"cli_not_a_number", "", "run --quiet --layers many", {"--layers"}},
      // CLI11's own parse errors, each class in the house form: "error: ", the option (and value), the problem,
      // where the options are listed; never CLI11's "Run with --help" line.
      {"cli11_unknown_option", "", "run --quiet --bogus 3",
       {"error: unknown option '--bogus' for stasim run (stasim run --help lists the options)\n"}},
      {"cli11_missing_value", "", "run --quiet --layers",
       {"error: --layers: needs an integer after it (stasim run --help lists the options)\n"}},
      {"cli11_missing_text_value", "", "run --quiet --model",
       {"error: --model: needs a value after it (stasim run --help lists the options)\n"}},
      {"cli11_bad_integer", "", "run --quiet --layers many",
       {"error: --layers many: expected an integer (stasim run --help lists the options)\n"}},
      {"cli11_fraction_for_integer", "", "run --quiet --batch 1.5",
       {"error: --batch 1.5: expected an integer (stasim run --help lists the options)\n"}},
      {"cli11_extra_positional", "", "run --quiet extra",
       {"error: unexpected argument 'extra' for stasim run (options take the form --name VALUE)\n"}},
      {"cli11_excluded_pair", "", "run --quiet --verbose --layers 1",
       {"error: --quiet excludes --verbose (stasim run --help lists the options)\n"}},
  };
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ErrorCatalog : public testing::TestWithParam<Case> {};

std::string expand(const std::string& text, const std::string& file, const std::string& out) {
  return stasim::test::replace_all(
      text, {{"{file}", file}, {"{out}", out}, {"{trn3}", std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"}});
}

TEST_P(ErrorCatalog, ExitsTwoNamingThePlace) {
  const Case& c = GetParam();
  const std::string file = testing::TempDir() + c.name;
  const std::string out = testing::TempDir() + c.name + "_out";
  const std::string command = expand(c.command, file, out);
  // The file is named after the case, plus the extension the command gives it (routes files).
  if (c.command.find("{file}") != std::string::npos)
    std::ofstream(file + stasim::test::file_suffix(c.command)) << expand(c.file, file, out);
  stasim::test::Output o = stasim::test::run_stasim(command);
  EXPECT_EQ(o.code, 2) << command << "\n" << o.text;
  for (const std::string& fragment : c.expected) EXPECT_THAT(o.text, HasSubstr(expand(fragment, file, out))) << command;
  EXPECT_THAT(o.text, testing::Not(HasSubstr("internal error")));
  EXPECT_THAT(o.text, testing::Not(HasSubstr("Run with --help")));  // CLI11's raw form, never printed
  stasim::test::expect_no_line_twice(o.text);  // the same problem is never reported twice
}

INSTANTIATE_TEST_SUITE_P(Cli, ErrorCatalog, testing::ValuesIn(catalog()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
