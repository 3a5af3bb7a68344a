#include "sim/core/config_reader.hpp"
#include "sim/core/graph_validation.hpp"
#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "tests/fuzz/fuzz_harness.hpp"

namespace stasim::fuzz {

void schedule(const std::string& input) {
  // Loaded once: every input is validated against the same shipped hardware, as `stasim schedule` does.
  static const HardwareConfig hw = load_hardware(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml");
  try {
    LoadedSchedule loaded = read_schedule(parse_yaml_text(input, "fuzz-schedule.yaml"), "fuzz-schedule.yaml");
    for (OpId op = 0; op < loaded.graph.size(); ++op) expect_printable(loaded.graph.name(op), "the op name");
    validate_graph(loaded.graph, hw, loaded.locator());
    (void)execution_order(loaded.graph);
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
