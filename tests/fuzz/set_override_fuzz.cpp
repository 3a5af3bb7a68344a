#include <sstream>
#include <vector>

#include "sim/core/config_reader.hpp"
#include "sim/core/hardware_config.hpp"
#include "tests/fuzz/fuzz_harness.hpp"
#include "workloads/model_spec.hpp"

namespace stasim::fuzz {

void set_override(const std::string& input) {
  static const std::string hw_path = std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml";
  static const std::string model_path = std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml";
  static const YAML::Node hw_document = load_hardware_document(hw_path);
  static const YAML::Node model_document = load_yaml_file(model_path);
  std::vector<std::string> sets;
  std::istringstream lines(input);
  for (std::string line; std::getline(lines, line);) sets.push_back(line);
  // Overrides edit the document in place, so each input gets fresh copies of the shipped ones.
  try {
    YAML::Node hw = YAML::Clone(hw_document);
    apply_overrides(hw, sets, hw_path);
    (void)read_hardware(hw, hw_path);
  } catch (const InputError&) {
  }
  try {
    YAML::Node model = YAML::Clone(model_document);
    apply_overrides(model, sets, model_path);
    (void)read_model_spec(model, model_path);
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
