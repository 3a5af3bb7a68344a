// Loading configs/hw/*.yaml and the errors bad values produce (file:line:column, key path, did-you-mean).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "sim/core/hardware_config.hpp"

namespace stasim {
namespace {

using testing::HasSubstr;

std::string hw_path(const std::string& name) { return std::string(STASIM_SOURCE_DIR) + "/configs/hw/" + name + ".yaml"; }

// Loads trn3.yaml with one line replaced, from a string.
HardwareConfig trn3_with(const std::string& from, const std::string& to) {
  std::string text = YAML::Dump(YAML::LoadFile(hw_path("trn3")));  // normalized: one "key: value" per line
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return read_hardware(parse_yaml_text(text, "trn3-edited.yaml"), "trn3-edited.yaml");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HardwareConfig, ShippedGenerationsLoadWithTheirDocumentedNumbers) {
  HardwareConfig t3 = load_hardware(hw_path("trn3"));
  EXPECT_EQ(t3.name, "trn3");
  EXPECT_EQ(t3.lnc, 2u);
  EXPECT_DOUBLE_EQ(t3.tensor.clock_ghz, 2.4);
  EXPECT_EQ(t3.sbuf.bytes_per_partition, 262144u);
  EXPECT_DOUBLE_EQ(t3.dma.bytes_per_ns(), 528);                 // 16 engines x 33 B/ns
  EXPECT_DOUBLE_EQ(t3.hbm_bytes_per_ns_available(), 1175);      // 4700 x 2 / 8
  HardwareConfig t2 = load_hardware(hw_path("trn2"));
  EXPECT_DOUBLE_EQ(t2.vector.clock_ghz, 0.96);
  EXPECT_DOUBLE_EQ(t2.dma.bytes_per_ns(), 368);                 // 16 x 23
  EXPECT_DOUBLE_EQ(t2.hbm_bytes_per_ns_available(), 725);       // 2900 x 2 / 8
  HardwareConfig t1 = load_hardware(hw_path("trn1"));
  EXPECT_EQ(t1.lnc, 1u);
  EXPECT_DOUBLE_EQ(t1.tensor.clock_ghz, 2.8);
  EXPECT_DOUBLE_EQ(t1.hbm_bytes_per_ns_available(), 410);       // 820 x 1 / 2
}

TEST(HardwareConfig, OverridesApplyWithTheSameValidation) {
  HardwareConfig hw = load_hardware(hw_path("trn3"), {"core.dma.issue_ns=900", "core.semaphore_ns=75"});
  EXPECT_DOUBLE_EQ(hw.dma.issue_ns, 900);
  EXPECT_DOUBLE_EQ(hw.semaphore_ns, 75);
  std::string e = error_of([] { load_hardware(hw_path("trn3"), {"core.dma.issue_ns=-5"}); });
  EXPECT_THAT(e, HasSubstr("(from --set): core.dma.issue_ns: must not be negative"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"core.dma.isue_ns=900"}); });
  EXPECT_THAT(e, HasSubstr("has no key 'core.dma.isue_ns' (did you mean 'core.dma.issue_ns'?)"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"core.dma.engines=many"}); });
  EXPECT_THAT(e, HasSubstr("core.dma.engines: expected a non-negative integer, got 'many'"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"nonsense"}); });
  EXPECT_THAT(e, HasSubstr("expected key.path=value"));
}

// The host's part of a decode step: 150 us assumed in the shipped configs, 0 for a config without a runtime
// section; a negative value or a misspelt key is an error naming it.
TEST(HardwareConfig, RuntimeStepIsOptionalAndValidated) {
  EXPECT_DOUBLE_EQ(load_hardware(hw_path("trn3")).runtime.step_us, 150);
  EXPECT_DOUBLE_EQ(trn3_with("runtime:\n  step_us: 150", "").runtime.step_us, 0);
  std::string e = error_of([] { load_hardware(hw_path("trn3"), {"runtime.step_us=-1"}); });
  EXPECT_THAT(e, HasSubstr("runtime.step_us: must not be negative"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"runtime.step_s=1"}); });
  EXPECT_THAT(e, HasSubstr("(did you mean 'runtime.step_us'?)"));
}

TEST(HardwareConfig, UnknownKeyIsAnErrorWithLineAndSuggestion) {
  std::string e = error_of([] { trn3_with("semaphore_ns: 50", "semaphore_nss: 50"); });
  EXPECT_THAT(e, HasSubstr("trn3-edited.yaml:"));
  EXPECT_THAT(e, HasSubstr("core.semaphore_nss: unknown key (did you mean 'core.semaphore_ns'?)"));
  EXPECT_THAT(e, HasSubstr("missing required key 'core.semaphore_ns'"));
}

TEST(HardwareConfig, WrongTypesAndNonPositiveSizesAreReportedTogether) {
  std::string e = error_of([] { trn3_with("banks: 8", "banks: eight"); });
  EXPECT_THAT(e, HasSubstr("core.psum.banks: expected a non-negative integer, got 'eight'"));
  e = error_of([] { trn3_with("bytes_per_ns_per_engine: 33", "bytes_per_ns_per_engine: 0"); });
  EXPECT_THAT(e, HasSubstr("core.dma.bytes_per_ns_per_engine: must be positive"));
  e = error_of([] { trn3_with("lnc: 2", "lnc: 9"); });
  EXPECT_THAT(e, HasSubstr("lnc: must be between 1 and device.cores (8)"));
}

TEST(HardwareConfig, ExchangeQueuesDefaultToOneAndCannotExceedTheQueues) {
  EXPECT_EQ(load_hardware(hw_path("trn3")).dma.exchange_queues, 1u);
  // Optional: a hardware file written before the key existed keeps one exchange queue.
  EXPECT_EQ(trn3_with("exchange_queues: 1", "# exchange_queues left out").dma.exchange_queues, 1u);
  EXPECT_EQ(trn3_with("exchange_queues: 1", "exchange_queues: 0").dma.exchange_queues, 0u);
  std::string e = error_of([] { trn3_with("exchange_queues: 1", "exchange_queues: 17"); });
  EXPECT_THAT(e, HasSubstr("trn3-edited.yaml:"));
  EXPECT_THAT(e, HasSubstr("core.dma.exchange_queues: must be between 0 and queues (16)"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"core.dma.exchange_queues=-1"}); });
  EXPECT_THAT(e, HasSubstr("core.dma.exchange_queues: expected a non-negative integer, got '-1'"));
}

TEST(HardwareConfig, ExchangesGoOnTheSharedDmaUnlessGpSimdsDmaIsNamed) {
  HardwareConfig hw = load_hardware(hw_path("trn3"));
  EXPECT_EQ(hw.dma.exchange_engine, DmaConfig::ExchangeEngine::dma);
  EXPECT_DOUBLE_EQ(hw.dma.gpsimd_dma_ns, 500);
  // Optional: a file written before the key has the shared DMA.
  EXPECT_EQ(trn3_with("exchange_engine: dma", "# left out").dma.exchange_engine, DmaConfig::ExchangeEngine::dma);
  hw = load_hardware(hw_path("trn3"), {"core.dma.exchange_engine=gpsimd_dma", "core.dma.gpsimd_dma_ns=250"});
  EXPECT_EQ(hw.dma.exchange_engine, DmaConfig::ExchangeEngine::gpsimd_dma);
  EXPECT_DOUBLE_EQ(hw.dma.gpsimd_dma_ns, 250);
  std::string e = error_of([] { trn3_with("exchange_engine: dma", "exchange_engine: gpsimd"); });
  EXPECT_THAT(e, HasSubstr("trn3-edited.yaml:"));
  EXPECT_THAT(e, HasSubstr("core.dma.exchange_engine: must be dma or gpsimd_dma, got 'gpsimd'"));
  e = error_of([] { load_hardware(hw_path("trn3"), {"core.dma.gpsimd_dma_ns=-5"}); });
  EXPECT_THAT(e, HasSubstr("core.dma.gpsimd_dma_ns: must not be negative"));
}

TEST(HardwareConfig, MalformedYamlNamesFileLineAndColumn) {
  std::string e;
  char path[] = "/tmp/stasim_bad_yamlXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const char text[] = "name: trn3\ndevice: {cores: 8\n";
  ASSERT_EQ(write(fd, text, sizeof text - 1), ssize_t(sizeof text - 1));
  close(fd);
  e = error_of([&] { load_hardware(path); });
  EXPECT_THAT(e, HasSubstr(std::string(path) + ":3:1: malformed YAML"));
  unlink(path);
  e = error_of([] { load_hardware("/nonexistent/hw.yaml"); });
  EXPECT_THAT(e, HasSubstr("/nonexistent/hw.yaml: cannot open the file"));
}

TEST(NearestMatch, SuggestsOnlyPlausibleTypos) {
  EXPECT_EQ(nearest_match("fixd_ns", {"fixed_ns", "engines", "queues"}), "fixed_ns");
  EXPECT_EQ(nearest_match("banana", {"fixed_ns", "engines", "queues"}), "");
}

}  // namespace
}  // namespace stasim
