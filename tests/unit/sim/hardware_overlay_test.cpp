// Hardware overlays: `base: trn3.yaml` plus only the keys that change, validated like a full config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/core/hardware_config.hpp"

namespace stasim {
namespace {

using testing::HasSubstr;

namespace fs = std::filesystem;

// A scratch folder holding a copy of trn3.yaml, so overlays can name their base relative to their own folder.
// One folder per process: ctest runs the tests of this file in parallel processes.
fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("stasim_overlay_test." + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(fs::path(STASIM_SOURCE_DIR) / "configs/hw/trn3.yaml", dir / "trn3.yaml",
                fs::copy_options::overwrite_existing);
  return dir;
}

std::string write(const std::string& name, const std::string& text) {
  fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string error_of(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_hardware(path, sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A bare name is a shipped config: without a lookup for shipped names (config_paths.hpp) the core loader finds
// it beside the overlay, as the shipped overlays sit beside their bases.
TEST(HardwareOverlay, ABareBaseNameIsTheFileBesideTheOverlay) {
  std::string p = write("by_name.yaml", "base: trn3\ncore:\n  semaphore_ns: 70\n");
  EXPECT_DOUBLE_EQ(load_hardware(p).semaphore_ns, 70);
  std::string q = write("by_unknown_name.yaml", "base: trn7\n");
  EXPECT_THAT(error_of(q), HasSubstr("base: no file '" + (scratch() / "trn7.yaml").string() + "'"));
  // With a lookup, a name not beside the overlay is asked of it.
  std::string asked;
  HardwareConfig hw = load_hardware(write("looked_up.yaml", "base: trn3-elsewhere\n"), {}, [&](const std::string& name) {
    asked = name;
    return (scratch() / "trn3.yaml").string();
  });
  EXPECT_EQ(asked, "trn3-elsewhere");
  EXPECT_EQ(hw.name, "trn3");
}

TEST(HardwareOverlay, ChangesOnlyTheKeysItNames) {
  std::string p = write("fast_dma.yaml",
                        "base: trn3.yaml\n"
                        "core:\n"
                        "  dma:\n"
                        "    issue_ns: 700\n"
                        "  engines:\n"
                        "    gpsimd:\n"
                        "      start_cycles: 300\n"
                        "collective:\n"
                        "  alpha_ns: 4000\n");
  HardwareConfig hw = load_hardware(p);
  HardwareConfig base = load_hardware((scratch() / "trn3.yaml").string());
  EXPECT_DOUBLE_EQ(hw.dma.issue_ns, 700);
  EXPECT_DOUBLE_EQ(hw.gpsimd.start_cycles, 300);
  EXPECT_DOUBLE_EQ(hw.collective.alpha_ns, 4000);
  // Everything else is the base's: its 33 B/ns per engine, its GpSimd per-index gather cost, its beta.
  EXPECT_DOUBLE_EQ(hw.dma.bytes_per_ns_per_engine, 33);
  EXPECT_DOUBLE_EQ(hw.gpsimd.gather_index_cycles, base.gpsimd.gather_index_cycles);
  EXPECT_DOUBLE_EQ(hw.collective.beta_ns_per_byte, base.collective.beta_ns_per_byte);
  EXPECT_EQ(hw.name, "trn3");
  EXPECT_EQ(hw.file, p);
}

TEST(HardwareOverlay, OverridesApplyAfterTheMerge) {
  std::string p = write("sem.yaml", "base: trn3.yaml\ncore:\n  semaphore_ns: 80\n");
  EXPECT_DOUBLE_EQ(load_hardware(p).semaphore_ns, 80);
  EXPECT_DOUBLE_EQ(load_hardware(p, {"core.semaphore_ns=120"}).semaphore_ns, 120);
}

TEST(HardwareOverlay, AKeyTheBaseLacksIsAnErrorWithSuggestion) {
  std::string p = write("typo.yaml", "base: trn3.yaml\ncore:\n  dma:\n    isue_ns: 700\n");
  EXPECT_THAT(error_of(p), HasSubstr("typo.yaml:4:5: core.dma.isue_ns: not a key of the base config (did you mean "
                                     "'core.dma.issue_ns'?)"));
}

TEST(HardwareOverlay, BadValuesAreReportedAtTheOverlaysLine) {
  std::string p = write("negative.yaml", "base: trn3.yaml\ncore:\n  dma:\n    issue_ns: -3\n    engines: many\n");
  std::string e = error_of(p);
  EXPECT_THAT(e, HasSubstr("negative.yaml:4:5: core.dma.issue_ns: must not be negative"));
  EXPECT_THAT(e, HasSubstr("negative.yaml:5:5: core.dma.engines: expected a non-negative integer, got 'many'"));
}

TEST(HardwareOverlay, MissingBaseAndCyclesAreErrors) {
  std::string p = write("nobase.yaml", "base: trn9.yaml\ncore:\n  semaphore_ns: 80\n");
  EXPECT_THAT(error_of(p), HasSubstr("nobase.yaml:1:7: base: no file"));
  write("a.yaml", "base: b.yaml\n");
  std::string b = write("b.yaml", "base: a.yaml\n");
  EXPECT_THAT(error_of(b), HasSubstr("part of a base cycle"));
}

TEST(HardwareOverlay, ShippedCalibratedConfigIsAnOverlayOfTrn3) {
  std::string shipped = std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3-calibrated.yaml";
  YamlNode doc = load_yaml_file(shipped);
  EXPECT_EQ(doc["base"].scalar(), "trn3");  // calibrate names a shipped base by its name (config_paths)
  HardwareConfig hw = load_hardware(shipped);
  EXPECT_EQ(hw.name, "trn3-calibrated");
  EXPECT_DOUBLE_EQ(hw.tensor.clock_ghz, 2.4);               // documented values come from the base
  EXPECT_DOUBLE_EQ(hw.dma.bytes_per_ns_per_engine, 33);
}

}  // namespace
}  // namespace stasim
