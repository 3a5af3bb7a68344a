// Bad bytes and out-of-range numbers are input errors (issue "Hardening III", class 4), one case per surface where
// text or a tensor enters: YAML names, keys and values (hardware, model, schedule), --set key paths and values,
// paths (escaped where they reach an output, never refused), tensors in a checkpoint and synthetic scales. Each
// case writes its file byte for byte, runs the binary through sh and expects exit code 2 (0 for the escaped
// path), the message naming file:line:column and key (or the tensor and element), and no internal error. Left
// from the last round (class 9): routes from a device and a reference whose hardware is not a hardware config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;
using stasim::test::replace_all;
using stasim::test::run_shell;
using testing::HasSubstr;

struct Case {
  std::string name;
  std::string file;   // written byte for byte to {file} (in the case's own folder {dir}); "" = no file
  std::string shell;  // run by sh in {dir}; {stasim} is the binary, {src} the source tree
  int code;
  std::vector<std::string> expected;  // fragments of the output, with the same placeholders
};

const char* const kHw = "{stasim} schedule --quiet --hw {file}";
const char* const kSchedule = "{stasim} schedule --quiet --schedule {file}";
const char* const kRunModel = "{stasim} run --quiet --layers 1 --model {file}";
const std::string kName = " (a name is printed in every output, so it must be printable UTF-8)";
const std::string kKey = " (keys must be printable UTF-8)";
const std::string kText = " (text must be UTF-8 without control characters other than tab and line feed)";

// A safetensors file written by sh: 8-byte little-endian header length, the JSON header, then `data` (printf
// octal escapes). The header is shorter than 256 bytes, so its length is one byte and seven zeros.
std::string safetensors(const std::string& path, const std::string& header, const std::string& data) {
  return "h='" + header + "'; { printf \"\\\\$(printf %03o ${#h})\\\\000\\\\000\\\\000\\\\000\\\\000\\\\000\\\\000\"; "
         "printf '%s' \"$h\"; printf '" + data + "'; } > " + path + "; ";
}

std::vector<Case> catalog() {
  const std::string model = stasim::test::kTinyModel;
  return {
      // ---- names: refused at the value, with the byte (line 2 is "  - {name: ...": the value is at column 12)
      {"schedule_op_name_invalid_utf8", "ops:\n  - {name: a\xff, engine: vector, duration_ns: 10}\n", kSchedule, 2,
       {"{file}:2:12: ops[0].name: 'a\\xff' holds invalid UTF-8 at byte 2" + kName}},
      {"schedule_op_name_control_escape", "ops:\n  - {name: \"a\\x01b\", engine: vector, duration_ns: 10}\n",
       kSchedule, 2, {"{file}:2:12: ops[0].name: 'a\\x01b' holds a control character (0x01) at byte 2" + kName}},
      {"schedule_op_name_line_feed", "ops:\n  - {name: \"a\\nb\", engine: vector, duration_ns: 10}\n", kSchedule, 2,
       {"{file}:2:12: ops[0].name: 'a\\x0ab' holds a control character (0x0a) at byte 2" + kName}},
      {"schedule_dep_surrogate",
       "ops:\n  - {name: a, engine: vector, duration_ns: 10}\n  - {name: b, engine: vector, duration_ns: 10, deps: "
       "[a\xed\xa0\x80]}\n",
       kSchedule, 2, {"{file}:3:55: ops[1].deps[0]: 'a\\xed\\xa0\\x80' holds invalid UTF-8 at byte 2" + kText}},
      {"hw_name_c1_control", "base: trn3\nname: \"trn\\u0085\"\n", kHw, 2,
       {"{file}:2:7: name: 'trn\\xc2\\x85' holds a control character (U+0085) at byte 4" + kName}},
      {"model_name_escape_sequence", replace_all(model, {{"name: tiny-moe", "name: \"tiny\\e[2J\""}}), kRunModel, 2,
       {"{file}:1:7: name: 'tiny\\x1b[2J' holds a control character (0x1b) at byte 5" + kName}},
      // ---- keys and other values
      {"hw_key_invalid_utf8", "base: trn3\ncore:\n  dm\xff: 1\n", kHw, 2,
       {"{file}:3:3: core: the key 'dm\\xff' holds invalid UTF-8 at byte 3" + kKey}},
      {"model_value_overlong", replace_all(model, {{"activation: swiglu", "activation: swiglu\xc0\xaf"}}), kRunModel, 2,
       {"{file}:9:15: moe.activation: 'swiglu\\xc0\\xaf' holds invalid UTF-8 at byte 7" + kText}},
      // ---- --set: the key path is refused as it is typed, a value like a file's (quoted escaped in the message)
      {"set_key_path_invalid_utf8", "", "{stasim} schedule --quiet --set \"$(printf 'core.dm\\377a.x=1')\"", 2,
       {"--set core.dm\\xffa.x=1: the key path holds invalid UTF-8 at byte 8" + kKey}},
      {"set_name_control", "", "{stasim} schedule --quiet --set \"$(printf 'name=a\\001')\"", 2,
       {"trn3.yaml (from --set): name: 'a\\x01' holds a control character (0x01) at byte 2" + kName}},
      // ---- paths: a file's name cannot be refused, so an output records it escaped (and exit 0)
      {"path_with_invalid_utf8_is_escaped_in_the_json", "",
       "cp {src}/configs/schedules/dma_sharing.yaml \"$(printf 's\\377.yaml')\" && "
       "{stasim} schedule --quiet --schedule \"$(printf 's\\377.yaml')\" --json out.json && "
       "grep -o '\"name\": \"s[^\"]*\"' out.json | sort -u",
       0, {"\"name\": \"s\\\\xff.yaml\""}},
      // ---- tensors: a BF16-max element or a scale of 1e308 is named instead of an eigen-solver failing
      {"bf16_max_activation", "",
       safetensors("a.safetensors", "{\"activations\":{\"dtype\":\"BF16\",\"shape\":[4,8],\"data_offsets\":[0,64]}}",
                   // 0x7f7f = BF16 max (3.3895e38), then 31 x 0x3f80 = 1.0
                   "\\177\\177" + [] { std::string ones; for (int i = 0; i < 31; ++i) ones += "\\200\\077"; return ones; }()) +
           "{stasim} represent --weights synthetic:hidden=8,intermediate=8,experts=2 --d 2 --r 1 --K 2 "
           "--eval-tokens 1 --activations a.safetensors",
       2, {"a.safetensors: tensor 'activations' [4, 8]: element 0 is 3.38953e+38, beyond ±1e6 (the low-rank fit's "
           "float sums would overflow; rescale the tensor)"}},
      {"synthetic_noise_scale_1e308", "",
       "{stasim} represent --weights synthetic:hidden=8,intermediate=8,experts=2,noise_scale=1e308 --d 2 --r 1 --K 2 "
       "--eval-tokens 1",
       2, {"synthetic weights: gate of expert 0, element 0 is ", ", beyond ±1e6 (shared_scale ", "noise_scale 1e+308; "
           "the low-rank fit's float sums would overflow: lower the scales)"}},
      // ---- class 9 leftovers
      {"routes_from_dev_zero", "", "timeout 30 {stasim} run --quiet --layers 1 --routes /dev/zero", 2,
       {"/dev/zero: the routes file must be a regular file, not a character device"}},
      {"reference_hardware_is_a_folder", "", "mkdir hwdir; sed 's|^hardware: trn3|hardware: ./hwdir|' "
       "{src}/configs/reference/published.yaml > ref.yaml; {stasim} validate --quiet --reference ref.yaml",
       2, {"ref.yaml:10:1: hardware: ./hwdir: the file must be a regular file, not a directory"}},
      {"reference_hardware_has_a_bad_key", "base: trn3\ncore:\n  dma:\n    isue_ns: 1\n",
       "sed 's|^hardware: trn3|hardware: {file}|' {src}/configs/reference/published.yaml > ref.yaml; "
       "{stasim} validate --quiet --reference ref.yaml",
       2, {"ref.yaml:10:1: hardware: {file}:4:5: core.dma.isue_ns: not a key of the base config (did you mean "
           "'core.dma.issue_ns'?)"}},
  };
}

class BadBytes : public testing::TestWithParam<Case> {};

TEST_P(BadBytes, AreInputErrorsNamingThePlace) {
  const Case& c = GetParam();
  const std::string dir = stasim::test::fresh_dir("bad_bytes_", c.name);
  const std::string file = dir + "/" + c.name + ".yaml";
  auto expand = [&](const std::string& text) {
    return replace_all(text, {{"{stasim}", STASIM_BINARY}, {"{src}", STASIM_SOURCE_DIR}, {"{dir}", dir}, {"{file}", file}});
  };
  if (!c.file.empty()) std::ofstream(file, std::ios::binary) << c.file;
  const std::string command = "cd " + dir + " && " + expand(c.shell);
  Output o = run_shell(command);
  EXPECT_EQ(o.code, c.code) << command << "\n" << o.text;
  for (const std::string& fragment : c.expected) EXPECT_THAT(o.text, HasSubstr(expand(fragment))) << command;
  EXPECT_THAT(o.text, testing::Not(HasSubstr("internal error")));
  EXPECT_THAT(o.text, testing::Not(HasSubstr("did not converge")));
  stasim::test::expect_no_line_twice(o.text);
}

INSTANTIATE_TEST_SUITE_P(Cli, BadBytes, testing::ValuesIn(catalog()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
