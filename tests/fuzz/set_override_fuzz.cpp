#include <sstream>
#include <vector>

#include "sim/core/config_reader.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/input_file.hpp"
#include "tests/fuzz/fuzz_harness.hpp"
#include "workloads/model_spec.hpp"

namespace stasim::fuzz {

void set_override(const std::string& input) {
  static const std::string hw_path = std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml";
  static const std::string model_path = std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml";
  static const std::string hw_text = read_input_file(hw_path, "the file");
  static const std::string model_text = read_input_file(model_path, "the file");
  std::vector<std::string> sets;
  std::istringstream lines(input);
  for (std::string line; std::getline(lines, line);) sets.push_back(line);
  // Overrides edit the document in place, so each input parses fresh copies of the shipped ones.
  try {
    YamlNode hw = parse_yaml_text(hw_text, hw_path);
    apply_overrides(hw, sets, hw_path);
    expect_printable(read_hardware(hw, hw_path).name, "the hardware name");
  } catch (const InputError&) {
  }
  try {
    YamlNode model = parse_yaml_text(model_text, model_path);
    apply_overrides(model, sets, model_path);
    expect_printable(read_model_spec(model, model_path).name, "the model name");
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
