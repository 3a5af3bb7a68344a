// The parameters of a calibration fit (sim/studies/calibration_fit.hpp, fit_parameters): the declared ones, then
// each `stasim calibrate --free key=LOW:HIGH` in order, with its search space read from its bounds and the key.
#include <gmock/gmock.h>

#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/core/input_error.hpp"
#include "sim/studies/calibration_fit.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

FitOptions on_trn3(std::vector<std::string> frees) {
  FitOptions o;
  o.base_hw = std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml";
  o.frees = std::move(frees);
  return o;
}

std::string error_of(const FitOptions& o) {
  try {
    fit_parameters(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CalibrationParameters, FreedKeysFollowTheDeclaredOnesWithTheirBoundsAndSearchSpace) {
  const std::size_t declared = calibration_parameters().size();
  EXPECT_EQ(fit_parameters(on_trn3({})).size(), declared);
  std::vector<CalibrationParameter> p =
      fit_parameters(on_trn3({"core.engines.gpsimd.swdge_descriptor_cycles=1:64", "core.dma.exchange_queues=1:3",
                              "core.engines.gpsimd.gather_word_cycles=0.5:1.5"}));
  ASSERT_EQ(p.size(), declared + 3);
  // 64 / 1 spans more than 4x: searched in log space; a cycle count takes fractions (the key accepts 1.5), so
  // it is not rounded to an integer.
  EXPECT_EQ(p[declared].name, "core.engines.gpsimd.swdge_descriptor_cycles");
  EXPECT_EQ(p[declared].keys, std::vector<std::string>{"core.engines.gpsimd.swdge_descriptor_cycles"});
  EXPECT_EQ(p[declared].low, 1);
  EXPECT_EQ(p[declared].high, 64);
  EXPECT_TRUE(p[declared].log_scale);
  EXPECT_FALSE(p[declared].integer);
  // A queue count refuses 1.5: searched over integers; 3 / 1 is within 4x: linear.
  EXPECT_TRUE(p[declared + 1].integer);
  EXPECT_FALSE(p[declared + 1].log_scale);
  // Fractional bounds: neither.
  EXPECT_FALSE(p[declared + 2].integer);
  EXPECT_FALSE(p[declared + 2].log_scale);
  EXPECT_THAT(p[declared + 2].reason, HasSubstr("--free core.engines.gpsimd.gather_word_cycles=0.5:1.5"));
}

// The declared parameters keep the reason for their bounds, and only a freed count is searched over integers:
// the rest move freely between rounding to their written precision at the end. (A field added before `reason`
// once took each reason string as `integers_only = true` and left every reason empty.)
TEST(CalibrationParameters, DeclaredParametersCarryTheirReasonsAndAreSearchedContinuously) {
  for (const CalibrationParameter& p : calibration_parameters()) {
    SCOPED_TRACE(p.name);
    EXPECT_THAT(p.reason, HasSubstr("docs/hardware-model.md"));
    EXPECT_FALSE(p.integers_only);
    EXPECT_LT(p.low, p.high);
  }
}

// Issue 15's guard on the shipped fit: no parameter of configs/hw/trn3-calibrated.yaml sits at a bound of its
// declared range ("AT LOWER/UPPER BOUND": within 1 % of the span, bound_flag), since a fitted value at a bound
// means a structure the model lacks. Every declared parameter is in the overlay (fitted, not left at the base).
TEST(CalibrationParameters, TheShippedFitHasNoParameterAtABound) {
  const YAML::Node overlay = YAML::LoadFile(std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3-calibrated.yaml");
  for (const CalibrationParameter& p : calibration_parameters()) {
    const std::string& key = p.keys.front();
    YAML::Node node = YAML::Clone(overlay);
    for (std::size_t from = 0; node;) {
      const std::size_t dot = key.find('.', from);
      node = node[key.substr(from, dot == std::string::npos ? std::string::npos : dot - from)];
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    ASSERT_TRUE(node && node.IsScalar()) << key << " is not in the shipped overlay";
    const double value = node.as<double>();
    EXPECT_EQ(bound_flag(p, value), "") << p.name << " = " << value << " in [" << p.low << ", " << p.high << "]";
  }
}

TEST(CalibrationParameters, ABadFreeIsRefusedWithItsReason) {
  EXPECT_THAT(error_of(on_trn3({"core.engines.gpsimd.swdge_descriptor_cycles"})), HasSubstr("expected key.path=LOW:HIGH"));
  EXPECT_THAT(error_of(on_trn3({"core.engines.gpsimd.swdge_descriptor_cycles=1:"})), HasSubstr("the upper bound '' is not a number"));
  EXPECT_THAT(error_of(on_trn3({"core.engines.gpsimd.swdge_descriptor_cycles=8:2"})),
              HasSubstr("the lower bound must be below the upper bound"));
  EXPECT_THAT(error_of(on_trn3({"core.link.latency_ns=100:500"})),
              HasSubstr("core.link.latency_ns is a declared parameter (link.latency_ns, between 100 and 2000)"));
  EXPECT_THAT(error_of(on_trn3({"core.dma.exchange_queues=1:2", "core.dma.exchange_queues=0:2"})), HasSubstr("freed twice"));
  EXPECT_THAT(error_of(on_trn3({"core.dma.exchange_queu=1:2"})), HasSubstr("no key 'core.dma.exchange_queu'"));
  // A bound the key does not take is the hardware config's own error.
  EXPECT_THAT(error_of(on_trn3({"core.engines.gpsimd.swdge_descriptor_cycles=-1:4"})),
              HasSubstr("core.engines.gpsimd.swdge_descriptor_cycles: must be positive"));
  FitOptions fixed = on_trn3({"core.dma.exchange_queues=1:2"});
  fixed.sets = {"core.dma.exchange_queues=2"};
  EXPECT_THAT(error_of(fixed), HasSubstr("also fixed by --set core.dma.exchange_queues=2; fix it or fit it, not both"));
}

}  // namespace
}  // namespace stasim::test
