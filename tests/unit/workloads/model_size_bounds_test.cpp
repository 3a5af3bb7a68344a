// Model sizes beyond any real model are input errors (found by fuzzing the model loader: a hidden size of 2^62
// passed validation and then overflowed the parameter count). The bounds keep every derived count in 64 bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "sim/core/input_error.hpp"
#include "workloads/model_spec.hpp"

namespace stasim {
namespace {

const std::string kQwen = std::string(STASIM_SOURCE_DIR) + "/configs/models/qwen3-30b-a3b.yaml";

std::string load_error(const std::vector<std::string>& overrides) {
  try {
    load_model(kQwen, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelSizeBounds, HugeSizesAreInputErrorsNamingTheKey) {
  EXPECT_NE(load_error({"hidden=4611686018427387904"}).find("hidden: must be at most 131072, got 4611686018427387904"),
            std::string::npos);
  EXPECT_NE(load_error({"layers=1025"}).find("layers: must be at most 1024, got 1025"), std::string::npos);
  EXPECT_NE(load_error({"moe.experts=9223372036854775807"})
                .find("moe.experts: must be at most 4096"), std::string::npos);
  EXPECT_NE(load_error({"deployment.batch=4097"}).find("deployment.batch: must be at most 4096, got 4097"),
            std::string::npos);
  EXPECT_NE(load_error({"deployment.context=4194305"}).find("deployment.context: must be at most 4194304"),
            std::string::npos);
}

TEST(ModelSizeBounds, LargestAllowedModelCountsFitIn64Bits) {
  // Every bound at once (experts 4096 with top_k 8, I = H = 2^17, 1024 layers): the routed experts alone are
  // 1024 x 4096 x 3 x 2^17 x 2^17 = 3 x 2^56 parameters, 3 x 2^57 bytes in BF16, below 2^63.
  ModelSpec m = load_model(kQwen, {"layers=1024", "hidden=131072", "moe.experts=4096", "moe.intermediate=131072",
                                   "vocab=4194304", "deployment.tp=1"});
  const std::int64_t routed = std::int64_t{1024} * 4096 * 3 * (std::int64_t{1} << 34);
  EXPECT_EQ(m.layer_parameters(0).routed_experts * 1024, routed);
  EXPECT_GT(m.total_parameters(), routed);
  EXPECT_LT(m.total_parameters(), std::numeric_limits<std::int64_t>::max() / 2);
}

}  // namespace
}  // namespace stasim
