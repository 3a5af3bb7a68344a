#include "sim/core/config_reader.hpp"
#include "sim/core/hardware_config.hpp"
#include "tests/fuzz/fuzz_harness.hpp"

namespace stasim::fuzz {

void hardware_config(const std::string& input) {
  try {
    HardwareConfig hw = read_hardware(parse_yaml_text(input, "fuzz-hw.yaml"), "fuzz-hw.yaml");
    // What the simulator derives first from a config it was told it can trust.
    expect_printable(hw.name, "the hardware name");
    (void)hw.hbm_bytes_per_ns_available();
    (void)hw.sbuf.usable_bytes_per_partition();
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
