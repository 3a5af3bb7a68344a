#include "sim/core/config_reader.hpp"
#include "tests/fuzz/fuzz_harness.hpp"
#include "workloads/model_spec.hpp"

namespace stasim::fuzz {

void model_config(const std::string& input) {
  try {
    ModelSpec model = read_model_spec(parse_yaml_text(input, "fuzz-model.yaml"), "fuzz-model.yaml");
    // The builders' first questions about a model that passed validation.
    expect_printable(model.name, "the model name");
    (void)model.total_parameters();
    (void)model.active_parameters();
    (void)model.expert_weight_bytes(model.deployment);
    for (std::int64_t layer = 0; layer < model.layers; ++layer)
      (void)model.kv_cache_bytes_per_token(layer, model.deployment);
  } catch (const InputError&) {
  }
}

}  // namespace stasim::fuzz
