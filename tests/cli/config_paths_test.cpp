// Where configs are found (sim/studies/config_paths.hpp): shipped names from the data folder ($STASIM_DATA_DIR,
// else the install beside the binary, else the source tree), overlays anywhere that name their base by shipped
// name or by a path relative to themselves, and what `calibrate --out` writes as `base:`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "cli_runner.hpp"
#include "sim/core/input_error.hpp"
#include "sim/studies/config_paths.hpp"

namespace stasim {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

// A scratch folder of this process (ctest runs the tests in parallel processes).
fs::path scratch(const std::string& sub) {
  fs::path dir = fs::temp_directory_path() / ("stasim_config_paths." + std::to_string(::getpid())) / sub;
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConfigPaths, ShippedNamesResolveInTheSourceTreeOfThisBuild) {
  ASSERT_EQ(std::getenv("STASIM_DATA_DIR"), nullptr);
  EXPECT_EQ(data_dir(), STASIM_SOURCE_DIR);
  EXPECT_EQ(resolve_hw("trn3"), std::string(STASIM_SOURCE_DIR) + "/configs/hw/trn3.yaml");
  EXPECT_EQ(shipped_hw_name(resolve_hw("trn3")), "trn3");
  EXPECT_EQ(shipped_hw_path("trn3"), resolve_hw("trn3"));
  EXPECT_EQ(shipped_hw_path("no-such-hardware"), "");
  EXPECT_EQ(shipped_hw_path("configs/hw/trn3.yaml"), "");  // a path is not a name
}

TEST(ConfigPaths, AnUnknownShippedNameListsTheShippedOnes) {
  EXPECT_EQ(shipped_configs("hw"), (std::vector<std::string>{"trn1", "trn2", "trn3", "trn3-calibrated"}));
  // "trn3-calibratd" is one insertion from trn3-calibrated.
  EXPECT_EQ(error_of([] { resolve_hw("trn3-calibratd"); }),
            "no hardware 'trn3-calibratd' (did you mean 'trn3-calibrated'?); shipped hardware: trn1, trn2, trn3, "
            "trn3-calibrated (or give the path of a YAML file)");
  // Nothing close: the list alone.
  EXPECT_THAT(error_of([] { resolve_model("llama"); }), HasSubstr("no model 'llama'; shipped models: deepseek-v2-lite, "));
  // A path is never taken for a name: a missing file is left to the loader, which names it.
  EXPECT_EQ(resolve_model("no/such/model.yaml"), "no/such/model.yaml");
}

TEST(ConfigPaths, AnOverlayAnywhereReachesItsShippedBaseByName) {
  const fs::path overlay = scratch("anywhere") / "slow_dma.yaml";
  write(overlay, "base: trn3\nname: trn3-slow-dma\ncore:\n  dma:\n    issue_ns: 2000\n");
  HardwareConfig hw = load_hardware_config(overlay.string());
  EXPECT_EQ(hw.name, "trn3-slow-dma");
  EXPECT_DOUBLE_EQ(hw.dma.issue_ns, 2000);
  EXPECT_DOUBLE_EQ(hw.dma.bytes_per_ns_per_engine, 33);  // trn3's
  EXPECT_DOUBLE_EQ(hw.tensor.clock_ghz, 2.4);
  // Without the shipped-name lookup (the core loader alone) the name is only looked for beside the overlay.
  EXPECT_THAT(error_of([&] { load_hardware(overlay.string()); }),
              HasSubstr("base: no file '" + (overlay.parent_path() / "trn3.yaml").string() + "'"));
  const fs::path unknown = scratch("anywhere") / "unknown_base.yaml";
  write(unknown, "base: trn9\n");
  EXPECT_THAT(error_of([&] { load_hardware_config(unknown.string()); }), HasSubstr("base: no file"));
}

TEST(ConfigPaths, WhatACalibratedOverlayWritesAsItsBase) {
  // A shipped base: its name, from any folder.
  EXPECT_EQ(overlay_base_reference(resolve_hw("trn3"), (scratch("out") / "fit.yaml").string()), "trn3");
  // A user's base: its path relative to the overlay, which the loader resolves relative to the overlay again.
  const fs::path base = scratch("mine") / "my_hw.yaml";
  fs::copy_file(resolve_hw("trn3"), base, fs::copy_options::overwrite_existing);
  const fs::path overlay = scratch("fits") / "my_hw-calibrated.yaml";
  const std::string reference = overlay_base_reference(base.string(), overlay.string());
  EXPECT_EQ(reference, "../mine/my_hw.yaml");
  write(overlay, "base: " + reference + "\ncore:\n  semaphore_ns: 30\n");
  EXPECT_DOUBLE_EQ(load_hardware_config(overlay.string()).semaphore_ns, 30);
}

TEST(ConfigPaths, StasimDataDirNamesAnotherDataFolder) {
  const fs::path data = scratch("data");
  fs::create_directories(data / "configs/hw");
  std::ifstream in(resolve_hw("trn3"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("name: trn3"), 10, "name: trn3-from-data-dir");
  write(data / "configs/hw/trn3.yaml", text);
  ::setenv("STASIM_DATA_DIR", data.c_str(), 1);
  EXPECT_EQ(data_dir(), data.string());
  EXPECT_EQ(load_hardware_config("trn3").name, "trn3-from-data-dir");
  // An overlay's shipped base comes from there too.
  const fs::path overlay = scratch("overlay_elsewhere") / "o.yaml";
  write(overlay, "base: trn3\n");
  EXPECT_EQ(load_hardware_config(overlay.string()).name, "trn3-from-data-dir");
  ::setenv("STASIM_DATA_DIR", "/nonexistent_data_dir", 1);
  EXPECT_EQ(error_of([] { data_dir(); }),
            "STASIM_DATA_DIR=/nonexistent_data_dir: no configs/ folder there (it names the folder that holds "
            "configs/, e.g. <prefix>/share/stasim)");
  ::unsetenv("STASIM_DATA_DIR");
}

TEST(ConfigPaths, TheBinaryRunsAnOverlayFromAnotherFolder) {
  const fs::path dir = scratch("cwd");
  write(dir / "overlay.yaml", "base: trn3\nname: trn3-overlay\ncore:\n  semaphore_ns: 80\n");
  const std::string command = "cd " + dir.string() + " && " + STASIM_BINARY +
                              " run --layers 1 --quiet --hw overlay.yaml --json r.json 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream result(dir / "r.json");
  std::string text((std::istreambuf_iterator<char>(result)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"hardware\": \"trn3-overlay\""));
}

}  // namespace
}  // namespace stasim
