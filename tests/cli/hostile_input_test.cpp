// The contract under hostile input (issue "Hardening II"), one group of cases per class of attack, in the style
// of error_catalog_test.cpp: each case prepares its files, runs the binary through a shell (so it can redirect to
// /dev/full, make FIFOs and symlink loops, or set ulimits) and expects an exit code, fragments of the output
// that name the file:line:column and key (or the op, or the option and its value), no internal error, and
// optionally a condition afterwards (what a failed sweep kept, that /dev/null is still a device). Class numbers
// are the issue's: 1 empty sections, 2 write failures, 3 special or colliding outputs, 4 picosecond overflow,
// 5 alias bombs, 6 special and oversized input files, 8 valid sizes beyond memory, 9 corrupt sweep parts,
// 12 smaller ones, 13 messages. Class 7 (memory per byte of input) is measured by hostile_memory_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using testing::HasSubstr;

struct Case {
  std::string name;
  std::string file;     // written to {file} (in the case's own folder {dir}); "" = no file
  std::string shell;    // run by sh in {dir}; {stasim} is the binary, {trn3} configs/hw/trn3.yaml, {src} the tree
  int code;             // expected exit code
  std::vector<std::string> expected;  // fragments of the output (stdout and stderr), with the same placeholders
  std::string after = "";             // a shell command run afterwards ...
  std::vector<std::string> after_expected = {};  // ... and fragments of its output
};

// A small valid model (line numbers: cli_runner.hpp).
const std::string& kModel = stasim::test::kTinyModel;

const std::string kReference =
    "source: hostile\n"                       // 1
    "hardware: trn3\n"                        // 2
    "model: qwen3-30b-a3b\n"                  // 3
    "deployment: {tp: 4, lnc: 2, batch: 1}\n" // 4
    "variants:\n"                             // 5
    "  reuse: {reuse_shared_projections: true, batch_gathers: false}\n"  // 6
    "targets:\n"                              // 7
    "  - id: dense.tpot_ms\n"                 // 8
    "    dataflow: dense\n"                   // 9
    "    value: 7.851\n";                     // 10

using stasim::test::replace_once;
std::string model_with(const std::string& from, const std::string& to) { return replace_once(kModel, from, to); }

// Nested anchors: 9 levels of 9 aliases each expand 543 bytes to 9^9 = 387,420,489 scalars.
std::string alias_bomb(const std::string& indent = "") {
  std::string out = indent + "zz_0: &zz_0 [1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int level = 1; level < 9; ++level) {
    std::string prev = "*zz_" + std::to_string(level - 1);
    out += indent + "zz_" + std::to_string(level) + ": &zz_" + std::to_string(level) + " [" + prev;
    for (int i = 1; i < 9; ++i) out += ", " + prev;
    out += "]\n";
  }
  return out;
}
// The same as one flow value (for --set).
std::string alias_bomb_value() {
  std::string out = "[&a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]";
  for (int level = 1; level < 9; ++level) {
    out += ", &a" + std::to_string(level) + " [";
    for (int i = 0; i < 9; ++i) out += (i ? ", *a" : "*a") + std::to_string(level - 1);
    out += "]";
  }
  return out + "]";
}

// A sweep row as JSON (merge needs point, key, status; an ok row also tpot_us and bits_per_weight).
std::string row(int point, const std::string& key, const std::string& extra = "") {
  return "{\"point\": " + std::to_string(point) + ", \"key\": \"" + key + "\", \"status\": \"invalid\", \"reason\": \"x\"" +
         extra + "}\n";
}

const char* const kHw = "{stasim} schedule --quiet --hw {file}";
const char* const kSchedule = "{stasim} schedule --quiet --schedule {file}";
const char* const kRunModel = "{stasim} run --quiet --layers 1 --model {file}";
const char* const kSweep = "{stasim} sweep --layers 1 --jobs 1 --out {dir}/out.csv --config {file}";
const char* const kTimeout = "timeout 30 ";  // a hang is a failure, not a stuck test

std::vector<Case> catalog() {
  const std::string bomb = alias_bomb();
  return {
      // ---- 1. present-but-empty sections are errors naming the key, never "all defaults"
      {"c1_hw_empty_dma", "base: {trn3}\ncore:\n  dma:\n", kHw, 2, {"{file}:3:3: core.dma: is empty (a required section"}},
      {"c1_hw_empty_engines", "base: {trn3}\ncore:\n  engines:\n", kHw, 2, {"{file}:3:3: core.engines: is empty"}},
      {"c1_hw_empty_link", "base: {trn3}\ncore:\n  link:\n", kHw, 2, {"{file}:3:3: core.link: is empty"}},
      {"c1_hw_empty_device", "base: {trn3}\ndevice:\n", kHw, 2, {"{file}:2:1: device: is empty"}},
      {"c1_hw_empty_engine", "base: {trn3}\ncore:\n  engines:\n    vector:\n", kHw, 2,
       {"{file}:4:5: core.engines.vector: is empty"}},
      {"c1_set_empty_dma", "", "{stasim} schedule --quiet --set core.dma=", 2,
       {"trn3.yaml (from --set): core.dma: is empty (a required section: give its keys)"}},
      {"c1_set_empty_collective", "", "{stasim} schedule --quiet --set collective=", 2,
       {"trn3.yaml (from --set): collective: is empty"}},
      {"c1_set_null_leaf", "", "{stasim} schedule --quiet --set core.dma.issue_ns=~", 2,
       {"(from --set): core.dma.issue_ns: expected a number, got nothing"}},
      {"c1_set_model_empty_attention", "", "{stasim} run --quiet --layers 1 --set model.attention=", 2,
       {"qwen3-30b-a3b.yaml (from --set): attention: is empty"}},
      {"c1_model_empty_moe",
       model_with("moe:\n  experts: 16\n  top_k: 2\n  intermediate: 768\n  activation: swiglu\n", "moe:\n"), kRunModel, 2,
       {"{file}:5:1: moe: is empty (a required section"}},
      {"c1_model_empty_attention",
       model_with("attention:\n  kind: gqa\n  q_heads: 16\n  kv_heads: 4\n  head_dim: 128\n", "attention:\n"), kRunModel,
       2, {"{file}:10:1: attention: is empty"}},
      {"c1_model_empty_optional_section", model_with("deployment:\n  tp: 4\n  lnc: 2\n  batch: 1\n", "deployment:\n"),
       kRunModel, 2, {"{file}:17:1: deployment: is empty (give its keys, or leave the key out for no deployment section)"}},
      {"c1_schedule_empty_ops", "ops:\n", kSchedule, 2, {"{file}:1:1: ops: is empty (expected a list"}},
      {"c1_schedule_empty_op", "ops:\n  -\n  - {name: a, engine: vector, duration_ns: 5}\n", kSchedule, 2,
       {"ops[0]: is empty (expected a mapping"}},
      {"c1_schedule_empty_buffers", "buffers:\nops:\n  - {name: a, engine: vector, duration_ns: 5}\n", kSchedule, 2,
       {"{file}:1:1: buffers: is empty"}},
      {"c1_sweep_empty_models", "models:\n", kSweep, 2, {"{file}:1:1: models: expected a list or a comma-separated string, got nothing"}},
      {"c1_reference_empty_deployment", replace_once(kReference, "deployment: {tp: 4, lnc: 2, batch: 1}\n", "deployment:\n"),
       "{stasim} validate --quiet --reference {file}", 2, {"{file}:4:1: deployment: is empty"}},
      {"c1_routes_empty_ids", "ids:\n", "{stasim} run --quiet --layers 1 --routes {file}.yaml", 2,
       {"ids: expected a list of rows"}},

      // ---- 2. every write is checked: exit 2 with the path and the OS's reason
      {"c2_json_full", "", "{stasim} schedule --quiet --json /dev/full", 2,
       {"/dev/full: cannot write the JSON file (No space left on device)"}},
      {"c2_trace_full", "", "{stasim} schedule --quiet --trace /dev/full", 2,
       {"/dev/full: cannot write the trace file (No space left on device)"}},
      {"c2_dot_full", "", "{stasim} schedule --quiet --dot /dev/full", 2,
       {"/dev/full: cannot write the graph file (No space left on device)"}},
      {"c2_run_json_full", "", "{stasim} run --quiet --layers 1 --json /dev/full", 2,
       {"/dev/full: cannot write the JSON file (No space left on device)"}},
      {"c2_stdout_full", "", "{stasim} schedule 2>&1 >/dev/full", 2,
       {"error: cannot write to standard output (No space left on device)"}},
      {"c2_route_json_full", "", "{stasim} partition --blocks 4 --n 256 --k 256 --thread-n 128 --thread-k 64 --grid 4 --json /dev/full", 2,
       {"/dev/full: cannot write the JSON file (--json) (No space left on device)"}},
      // A 3 KiB file-size limit (sh counts 512-byte blocks: 6; SIGXFSZ ignored, so the write fails with EFBIG):
      // s.csv.meta.json (about 2.2 KiB,
      // written before the first point) and the header and first rows fit, a later row (of 14, about 265 bytes
      // each) does not; the sweep stops with the reason and keeps the rows it wrote.
      {"c2_sweep_keeps_rows", "",
       "(trap '' XFSZ; ulimit -f 6; exec {stasim} sweep --layers 1 --r 0:768:64 --jobs 1 --out {dir}/s.csv)", 2,
       {"{dir}/s.csv: cannot write the sweep output (File too large)"},
       "head -2 {dir}/s.csv | cut -c1-7", {"point,k", "0,model"}},

      // ---- 3. outputs: no rename over special files, no two outputs on one file, no output over an input
      {"c3_sweep_out_dev_null", "", "{stasim} sweep --layers 1 --r 0 --out /dev/null", 2,
       {"/dev/null: the sweep output must be a regular file, not a character device"},
       "test -c /dev/null && echo still-a-device", {"still-a-device"}},
      {"c3_merge_out_fifo", row(0, "k0"), "mkfifo {dir}/f.csv; {stasim} merge {file} --out {dir}/f.csv", 2,
       {"{dir}/f.csv: the merged output must be a regular file, not a FIFO"}},
      {"c3_export_out_dev_null", "", "{stasim} export-weights --weights synthetic:experts=2,hidden=64,intermediate=32 --out /dev/null",
       2, {"/dev/null: the checkpoint must be a regular file, not a character device"}},
      {"c3_json_and_trace_one_file", "", "{stasim} schedule --quiet --json {dir}/o.json --trace {dir}/o.json", 2,
       {"--trace {dir}/o.json: the same file as --json {dir}/o.json"}},
      {"c3_dot_is_the_schedule", "ops:\n  - {name: a, engine: vector, duration_ns: 5}\n",
       "{stasim} schedule --quiet --schedule {file} --dot {file}", 2,
       {"--dot {file}: the same file as the input --schedule {file} (writing it would destroy the input)"},
       "cat {file}", {"name: a"}},
      {"c3_sweep_out_is_config", "r: [0]\n", "{stasim} sweep --layers 1 --config {file} --out {file}", 2,
       {"--out {file}: the same file as the input --config {file}"}},
      {"c3_compare_trace_and_dot", "", "{stasim} compare --quiet --layers 1 --dataflows dense --trace {dir}/t --dot {dir}/t", 2,
       {"--dot {dir}/t.dense: the same file as --trace {dir}/t.dense"}},

      // ---- 4. durations that overflow int64 picoseconds only in combination
      {"c4_dma_bytes_at_the_slowest_rate", "ops:\n  - {name: big, engine: dma, bytes: 18446744073709551615}\n", kSchedule, 2,
       {"{file}:2: op 'big': alone takes", "18446744073709551615 bytes", "beyond the simulator's limit"}},
      {"c4_all_reduce_bytes_times_beta", "ops:\n  - {name: ar, engine: collective, bytes: 18446744073709551615}\n",
       "{stasim} schedule --quiet --schedule {file} --set collective.beta_ns_per_byte=1", 2,
       {"{file}:2: op 'ar': alone takes", "on the collective engine"}},
      {"c4_gathers_add_up",
       [] {
         std::string s = "ops:\n";
         for (int i = 0; i < 12; ++i)
           s += "  - {name: g" + std::to_string(i) + ", engine: gpsimd, kind: gather, free: 4294967295}\n";
         return s;
       }(),
       "{stasim} schedule --quiet --schedule {file} --set core.engines.gpsimd.gather_index_cycles=1000 "
       "--set core.engines.gpsimd.clock_ghz=0.01",
       2, {"op 'g0': alone takes", "the graph's 12 ops add up to"}},

      // ---- 5. alias bombs: refused at the alias that passes the limit, in every loader and --set. Each alias
      // repeats its target's expanded size: zz_0 = 10 nodes (the list and 9 scalars), zz_k = 1 + 9 x zz_(k-1):
      // 91, 820, 7381, 66430. The aliases of levels 1-4 repeat 9 x (10 + 91 + 820 + 7381) = 74,718 nodes; the
      // first alias of level 5 (the bomb's line 6, column 14) adds 66,430 more: 141,148 > 100,000.
      {"c5_bomb_hw", "base: {trn3}\n" + bomb, std::string(kTimeout) + kHw, 2, {"{file}:7:14:", "aliases repeat more than 100000 nodes"}},
      {"c5_bomb_model", bomb + kModel, std::string(kTimeout) + kRunModel, 2, {"{file}:6:14:", "aliases repeat more than"}},
      {"c5_bomb_schedule", bomb + "ops: []\n", std::string(kTimeout) + kSchedule, 2, {"{file}:6:14:", "aliases repeat more than"}},
      {"c5_bomb_sweep", bomb, std::string(kTimeout) + kSweep, 2, {"{file}:6:14:", "aliases repeat more than"}},
      {"c5_bomb_reference", bomb + kReference, std::string(kTimeout) + "{stasim} validate --quiet --reference {file}", 2,
       {"{file}:6:14:", "aliases repeat more than"}},
      {"c5_bomb_routes", bomb + "ids: [[0, 1, 2, 3, 4, 5, 6, 7]]\n",
       std::string(kTimeout) + "{stasim} run --quiet --layers 1 --routes {file}.yaml", 2, {".yaml:6:14:", "aliases repeat more than"}},
      {"c5_bomb_set", "", std::string(kTimeout) + "{stasim} schedule --quiet --set 'core.dma=" + alias_bomb_value() + "'", 2,
       {"--set core.dma=", "aliases repeat more than 100000 nodes"}},
      {"c5_alias_in_its_own_anchor", "base: {trn3}\nname: &x [*x]\n", kHw, 2,
       {"{file}:2:11: an alias inside its own anchor"}},

      // ---- 6. inputs must be regular files under the size limit; file-system errors are input errors
      {"c6_dev_zero", "", std::string(kTimeout) + "{stasim} schedule --quiet --hw /dev/zero", 2,
       {"/dev/zero: the file must be a regular file, not a character device"}},
      {"c6_fifo_model", "", std::string(kTimeout) + "mkfifo {dir}/m.yaml; {stasim} run --quiet --model {dir}/m.yaml", 2,
       {"{dir}/m.yaml: the file must be a regular file, not a FIFO"}},
      {"c6_directory_schedule", "", "{stasim} schedule --quiet --schedule {dir}", 2,
       {"{dir}: the file must be a regular file, not a directory"}},
      {"c6_symlink_loop_hw", "", "ln -s {dir}/b.yaml {dir}/a.yaml; ln -s {dir}/a.yaml {dir}/b.yaml; {stasim} schedule --quiet --hw {dir}/a.yaml",
       2, {"{dir}/a.yaml: cannot open the file (Too many levels of symbolic links)"}},
      {"c6_symlink_loop_routes", "",
       "ln -s {dir}/b.csv {dir}/a.csv; ln -s {dir}/a.csv {dir}/b.csv; {stasim} run --quiet --layers 1 --routes {dir}/a.csv", 2,
       {"{dir}/a.csv: cannot open the routes file (Too many levels of symbolic links)"}},
      {"c6_oversized", "", "truncate -s 65M {dir}/big.yaml; {stasim} schedule --quiet --schedule {dir}/big.yaml", 2,
       {"{dir}/big.yaml: the file is larger than the 64 MiB an input file may have"}},
      {"c6_sweep_config_dev_zero", "", std::string(kTimeout) + "{stasim} sweep --config /dev/zero --out {dir}/s.csv", 2,
       {"/dev/zero: the file must be a regular file"}},
      {"c6_reference_directory", "", "{stasim} validate --quiet --reference {dir}", 2,
       {"{dir}: the file must be a regular file, not a directory"}},
      {"c6_safetensors_fifo", "",
       std::string(kTimeout) + "mkfifo {dir}/w.safetensors; {stasim} represent --weights {dir}/w.safetensors --d 8 --r 8 --K 16", 2,
       {"{dir}/w.safetensors: the safetensors file must be a regular file, not a FIFO"}},
      {"c6_merge_directory", "", "mkdir {dir}/part.csv; {stasim} merge {dir}/part.csv --out {dir}/m.csv", 2,
       {"{dir}/part.csv: a sweep output must be a regular file, not a directory"}},
      {"c6_plan_dev_zero", "", std::string(kTimeout) + "{stasim} align --generate --tokens 4 --top-k 2 --experts 8 --plan /dev/zero", 2,
       {"/dev/zero: the plan file must be a regular file"}},

      // ---- 8. sizes that pass their range checks but not memory: estimated first, refused with the limit
      {"c8_model_at_the_bounds",
       // 256 experts, not 4096: with 1024 or more the router's weight chunk takes 32 KiB per partition, more than
       // the SBUF the kernel gives its weights (a different exit 2, found before the op count this case is about).
       model_with("layers: 2\n", "layers: 1024\n") + "", std::string(kTimeout) + "{stasim} run --quiet --model {file} --set model.moe.experts=256 "
       "--set model.moe.top_k=64 --batch 64 --dataflow dense --down-schedule weight-sbuf", 2,
       {"{file}: 1024 layers of tiny-moe x", "beyond the simulator's 10000000", "--layers N"}},
      {"c8_partition_blocks", "", std::string(kTimeout) + "{stasim} partition --blocks 2147483647 --n 1536 --k 2048 --thread-n 128 "
       "--thread-k 64 --grid 246 --group 128", 2,
       {"2147483647 blocks x 12 N-tiles needs about", "GiB of memory; the limit is 8 GiB"}},
      {"c8_generated_tokens", "", std::string(kTimeout) + "{stasim} align --generate --tokens 2147483647 --top-k 8 --experts 128", 2,
       {"2147483647 tokens x top-8 over 128 experts needs about", "the limit is 8 GiB"}},
      {"c8_generated_experts", "", std::string(kTimeout) + "{stasim} align --generate --tokens 10 --top-k 8 --experts 2147483647", 2,
       {"over 2147483647 experts needs about", "the limit is 8 GiB"}},
      {"c8_synthetic_layer", "", std::string(kTimeout) + "{stasim} export-weights --weights synthetic:hidden=131072,intermediate=131072,experts=64 "
       "--out {dir}/w.safetensors", 2,
       {"a synthetic layer of 64 experts x 131072 x 131072 needs about", "the limit is 8 GiB"}},

      // ---- 9. corrupt or foreign sweep parts: exit 2 naming file and line
      {"c9_merge_array_line", row(0, "k0") + "[1, 2, 3]\n", "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2,
       {"{dir}/p.jsonl:2: expected a JSON object (one sweep row), got array"}},
      {"c9_merge_wrong_type", row(0, "k0", ", \"tpot_us\": \"fast\""),
       "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2,
       {"{dir}/p.jsonl:1: column tpot_us: expected a number, got string \"fast\""}},
      {"c9_merge_missing_figures", "{\"point\": 0, \"key\": \"k0\", \"status\": \"ok\"}\n",
       "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2,
       {"{dir}/p.jsonl:1: column tpot_us: expected a number in an ok row"}},
      {"c9_merge_broken_middle_line", row(0, "k0") + "{\"point\": 1, \"ke\n" + row(2, "k2"),
       "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2, {"{dir}/p.jsonl:2: not a JSON line"}},
      {"c9_merge_missing_columns", "point,key\n0,k0\n", "cp {file} {dir}/p.csv; {stasim} merge {dir}/p.csv --out {dir}/m.csv", 2,
       {"{dir}/p.csv:1: not a stasim sweep CSV (no status column)"}},
      {"c9_merge_header_cut", "point,key,sta", "cp {file} {dir}/p.csv; {stasim} merge {dir}/p.csv --out {dir}/m.csv", 2,
       {"{dir}/p.csv:1: the header line is cut"}},
      {"c9_merge_ragged_row", "point,key,status\n0,k0\n1,k1,invalid\n",
       "cp {file} {dir}/p.csv; {stasim} merge {dir}/p.csv --out {dir}/m.csv", 2,
       {"{dir}/p.csv:2: 2 cells, but the header has 3 columns"}},
      {"c9_merge_different_grids", row(0, "k0") + row(1, "k1"),
       "cp {file} {dir}/a.jsonl; printf '{\"point\": 1, \"key\": \"other\", \"status\": \"invalid\"}\\n' > {dir}/b.jsonl; "
       "{stasim} merge {dir}/a.jsonl {dir}/b.jsonl --out {dir}/m.csv", 2,
       {"{dir}/b.jsonl:1: point 1 is 'other', but at {dir}/a.jsonl:2 it is 'k1': the rows come from different sweep grids"}},
      {"c9_resume_another_grid", "",
       "{stasim} sweep --layers 1 --r 0 --jobs 1 --out {dir}/s.csv > /dev/null; "
       "{stasim} sweep --layers 1 --r 64 --jobs 1 --out {dir}/s.csv --resume", 2,
       {"{dir}/s.csv:3: ", "is not a point of this sweep's grid"}},
      // A vary cell's keys become columns: one named like a fixed column, or a vary column that disagrees with
      // its cell, is a foreign or edited file.
      {"c9_merge_vary_names_a_column", row(0, "k0", ", \"vary\": \"tpot_us=5\""),
       "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2,
       {"{dir}/p.jsonl:1: column vary: 'tpot_us' cannot be a --vary key"}},
      {"c9_merge_vary_column_disagrees", row(0, "k0", ", \"vary\": \"core.x=1\", \"core.x\": 2"),
       "cp {file} {dir}/p.jsonl; {stasim} merge {dir}/p.jsonl --out {dir}/m.csv", 2,
       {"{dir}/p.jsonl:1: column core.x: 2, but the row's vary cell says 1"}},
      {"c9_merge_missing_part", "", "{stasim} merge {dir}/none.csv --out {dir}/m.csv", 2, {"{dir}/none.csv: no such sweep output"}},

      // ---- 12. the smaller ones
      {"c12_shard_fraction", "", "{stasim} sweep --shard 0.9/2 --out {dir}/s.csv", 2, {"--shard '0.9/2': expected i/N"}},
      {"c12_shard_trailing_text", "", "{stasim} sweep --shard 1/2x --out {dir}/s.csv", 2, {"--shard '1/2x': expected i/N"}},
      {"c12_shard_three_parts", "", "{stasim} sweep --shard 0/2/7 --out {dir}/s.csv", 2, {"--shard '0/2/7': expected i/N"}},
      {"c12_second_document", "base: {trn3}\n---\nname: other\n", kHw, 2,
       {"{file}:2:1: a second YAML document ('---'); stasim reads exactly one document per file"}},
      {"c12_empty_op_names",
       "ops:\n  - {name: '', engine: vector, duration_ns: 5}\n  - {name: '', engine: vector, duration_ns: 5}\n", kSchedule, 2,
       {"{file}:2:6: ops[0].name: must not be empty", "{file}:3:6: ops[1].name: must not be empty"}},
      {"c12_mx_k_factor_wraps", "base: {trn3}\ncore:\n  engines:\n    tensor:\n      mx_k_factor: 4294967295\n", kHw, 2,
       {"{file}:5:7: core.engines.tensor.mx_k_factor: must be at most 64"}},
      {"c12_base_chain",
       "",
       "for i in $(seq 1 17); do printf 'base: c%d.yaml\\n' $((i - 1)) > {dir}/c$i.yaml; done; cp {trn3} {dir}/c0.yaml; "
       "{stasim} schedule --quiet --hw {dir}/c17.yaml",
       2, {"base: a chain of more than 16 overlays"}},
      {"c12_nonfinite_activations", "",
       // A safetensors file by hand: 8-byte header length, the JSON header, 2 tokens x 8 floats (1.0, one NaN,
       // then 14 x 0.0 = 56 zero bytes); one token calibrates, one evaluates (--eval-tokens 1).
       "h='{\"activations\":{\"dtype\":\"F32\",\"shape\":[2,8],\"data_offsets\":[0,64]}}'; "
       "{ printf \"\\\\$(printf %03o ${#h})\\\\000\\\\000\\\\000\\\\000\\\\000\\\\000\\\\000\"; printf '%s' \"$h\"; "
       "printf '\\000\\000\\200\\077\\000\\000\\300\\177'; head -c 56 /dev/zero; } > {dir}/a.safetensors; "
       "{stasim} represent --weights synthetic:hidden=8,intermediate=8,experts=2 --d 2 --r 1 --K 2 --eval-tokens 1 --activations {dir}/a.safetensors",
       2, {"{dir}/a.safetensors: tensor 'activations' [2, 8]: element 1 is NaN (weights and activations must be finite)"}},

      // ---- 13. messages name the file:line:column and key
      {"c13_model_batch_beyond_the_simulator", model_with("  batch: 1\n", "  batch: 100\n"), kRunModel, 2,
       {"{file}:20:3: deployment.batch 100: must be between 1 and 64 tokens per step"}},
      {"c13_model_lnc_against_the_hardware", model_with("  lnc: 2\n", "  lnc: 1\n"), kRunModel, 2,
       {"{file}:19:3: deployment.lnc = 1 but"}},
      // Two buffers that fit SBUF alone (200,000 of 245,496 usable bytes per partition) live at once: 400,000.
      {"c13_sbuf_overflow_over_time",
       "buffers:\n  - {name: a, bytes_per_partition: 200000}\n  - {name: b, bytes_per_partition: 200000}\nops:\n"
       "  - {name: x, engine: vector, duration_ns: 5, buffers: [a]}\n  - {name: y, engine: scalar, duration_ns: 5, buffers: [b]}\n",
       kSchedule, 2,
       {"{file}:3: buffer 'b': SBUF overflow on core 0", "400000 bytes per partition live, 245496 usable",
        "live buffers: {file}:2: buffer 'a' (200000), {file}:3: buffer 'b' (200000)"}},
      {"c13_hardware_value_breaks_every_matmul", "", "{stasim} run --quiet --layers 1 --set core.engines.tensor.max_moving_free=1", 2,
       {"core.engines.tensor.max_moving_free"}},
  };
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string expand(const std::string& text, const std::string& dir, const std::string& file) {
  return stasim::test::replace_all(text, {{"{stasim}", STASIM_BINARY}, {"{dir}", dir}, {"{file}", file},
                                          {"{trn3}", std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml"},
                                          {"{src}", STASIM_SOURCE_DIR}});
}

using stasim::test::run_shell;

class HostileInput : public testing::TestWithParam<Case> {};

TEST_P(HostileInput, RefusedNamingThePlace) {
  const Case& c = GetParam();
  namespace fs = std::filesystem;
  const std::string dir = testing::TempDir() + "hostile_" + c.name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = dir + "/" + c.name;
  const std::string command = "cd " + dir + " && " + expand(c.shell, dir, file);
  if (!c.file.empty()) {
    // Routes files take the extension their command gives them.
    std::size_t at = c.shell.find("{file}.");
    std::string suffix = at == std::string::npos ? "" : c.shell.substr(at + 6, c.shell.find(' ', at) - at - 6);
    std::ofstream(file + suffix) << expand(c.file, dir, file);
  }
  stasim::test::Output o = run_shell(command);
  EXPECT_EQ(o.code, c.code) << command << "\n" << o.text;
  for (const std::string& fragment : c.expected) EXPECT_THAT(o.text, HasSubstr(expand(fragment, dir, file))) << command;
  EXPECT_THAT(o.text, testing::Not(HasSubstr("internal error")));
  stasim::test::expect_no_line_twice(o.text);
  if (!c.after.empty()) {
    stasim::test::Output after = run_shell(expand(c.after, dir, file));
    for (const std::string& fragment : c.after_expected)
      EXPECT_THAT(after.text, HasSubstr(expand(fragment, dir, file))) << c.after;
  }
}

INSTANTIATE_TEST_SUITE_P(Cli, HostileInput, testing::ValuesIn(catalog()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
