// The output policy (README "Robustness", sim/core/output_file.hpp), one group of cases per class of issue 45:
// no output replaces an input (named, or read through a base: chain), the sweep's lock is never a stranger's
// file, temporaries are private, a failed write keeps the old file, an unwritable --out is refused before any
// work, and did-you-mean stays fast on hostile names. Run through the binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / ("output_policy_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void put(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

fs::path shipped(const std::string& relative) { return fs::path(STASIM_SOURCE_DIR) / relative; }

// Files in `dir` whose name holds ".tmp." (a private temporary left behind).
int temporaries_in(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

// A copy of trn3 and an overlay on it (base: base.yaml), in `dir`.
void make_chain(const fs::path& dir, const std::string& base_name = "base.yaml") {
  fs::copy_file(shipped("configs/hw/trn3.yaml"), dir / base_name);
  put(dir / "over.yaml", "base: ./" + base_name + "\n");
}

// ---- 1. Data loss: outputs never replace inputs -------------------------------------------------------------

TEST(OutputPolicy, ValidateNeverWritesOverItsReferenceOrHardware) {
  const fs::path dir = scratch("validate");
  fs::copy_file(shipped("configs/reference/published.yaml"), dir / "ref.yaml");
  make_chain(dir);
  const std::string reference = slurp(dir / "ref.yaml"), base = slurp(dir / "base.yaml");

  Output dump = run_stasim("validate --reference " + (dir / "ref.yaml").string() + " --dump-config " + (dir / "ref.yaml").string());
  EXPECT_EQ(dump.code, 2) << dump.text;
  EXPECT_THAT(dump.text, HasSubstr("--dump-config " + (dir / "ref.yaml").string() + ": the same file as the input --reference"));

  Output json = run_stasim("validate --reference " + (dir / "ref.yaml").string() + " --hw " + (dir / "base.yaml").string() +
                           " --json " + (dir / "base.yaml").string());
  EXPECT_EQ(json.code, 2) << json.text;
  EXPECT_THAT(json.text, HasSubstr("--json " + (dir / "base.yaml").string() + ": the same file as the input --hw"));

  // The base of an overlay given as --hw is an input too.
  Output chained = run_stasim("validate --reference " + (dir / "ref.yaml").string() + " --hw " + (dir / "over.yaml").string() +
                              " --json " + (dir / "base.yaml").string());
  EXPECT_EQ(chained.code, 2) << chained.text;
  EXPECT_THAT(chained.text, HasSubstr("--json " + (dir / "base.yaml").string() + ": the same file as "));
  EXPECT_THAT(chained.text, HasSubstr("an input this command read (writing it would destroy the input)"));

  EXPECT_EQ(slurp(dir / "ref.yaml"), reference);
  EXPECT_EQ(slurp(dir / "base.yaml"), base);
}

TEST(OutputPolicy, CalibrateNeverWritesItsOverlayOverItsHardwareOrItsBase) {
  const fs::path dir = scratch("calibrate");
  make_chain(dir);
  const std::string base = slurp(dir / "base.yaml"), overlay = slurp(dir / "over.yaml");
  Output self = run_stasim("calibrate --quiet --max-evaluations 3 --hw " + (dir / "over.yaml").string() + " --out " +
                           (dir / "over.yaml").string());
  EXPECT_EQ(self.code, 2) << self.text;
  EXPECT_THAT(self.text, HasSubstr("--out " + (dir / "over.yaml").string() + ": the same file as the input --hw"));
  Output onto_base = run_stasim("calibrate --quiet --max-evaluations 3 --hw " + (dir / "over.yaml").string() + " --out " +
                                (dir / "base.yaml").string());
  EXPECT_EQ(onto_base.code, 2) << onto_base.text;
  EXPECT_THAT(onto_base.text, HasSubstr("--out " + (dir / "base.yaml").string() + ": the same file as "));
  Output json = run_stasim("calibrate --quiet --max-evaluations 3 --out " + (dir / "new.yaml").string() + " --json " +
                           shipped("configs/reference/published.yaml").string());
  EXPECT_EQ(json.code, 2) << json.text;
  EXPECT_THAT(json.text, HasSubstr("the same file as the input --reference"));
  EXPECT_EQ(slurp(dir / "base.yaml"), base);
  EXPECT_EQ(slurp(dir / "over.yaml"), overlay);
  EXPECT_FALSE(fs::exists(dir / "new.yaml"));
}

TEST(OutputPolicy, RunScheduleAndSweepRefuseAnOutputOverAnOverlaysBase) {
  const fs::path dir = scratch("chain");
  make_chain(dir, "base.csv");  // a base named like a sweep output
  const std::string base = slurp(dir / "base.csv");
  const std::string over = (dir / "over.yaml").string(), target = (dir / "base.csv").string();
  for (const std::string& command :
       {"run --layers 1 --hw " + over + " --json " + target, "run --layers 1 --hw " + over + " --trace " + target,
        "compare --layers 1 --dataflows dense --hw " + over + " --dump-config " + target,
        "schedule --hw " + over + " --json " + target,
        "sweep --layers 1 --d 4 --r 0 --jobs 1 --force --hw " + over + " --out " + target}) {
    Output o = run_stasim(command);
    EXPECT_EQ(o.code, 2) << command << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(target + ": the same file as " + target)) << command;
    EXPECT_THAT(o.text, HasSubstr("an input this command read")) << command;
    EXPECT_EQ(slurp(dir / "base.csv"), base) << command;
  }
}

// ---- 1. Data loss: the sweep's lock --------------------------------------------------------------------------

TEST(OutputPolicy, TheSweepLockIsNeverAStrangersFileOrASymbolicLink) {
  const fs::path dir = scratch("lock");
  const std::string grid = "sweep --layers 1 --d 4 --r 0 --jobs 1 --force --out ";
  // Someone's file of the lock's name (--out Cargo.csv and a Cargo.csv.lock): refused, kept as it is. (--out
  // Cargo beside a Cargo.lock is refused before the lock is looked at: a sweep's output names its format.)
  put(dir / "Cargo.csv.lock", "[[package]]\nname = \"serde\"\n");
  put(dir / "Cargo.lock", "[[package]]\nname = \"serde\"\n");
  Output stranger = run_stasim(grid + (dir / "Cargo.csv").string());
  EXPECT_EQ(stranger.code, 2) << stranger.text;
  EXPECT_THAT(stranger.text, HasSubstr((dir / "Cargo.csv.lock").string() + ": the lock of " + (dir / "Cargo.csv").string() +
                                       " exists and is not a stasim sweep's lock; stasim neither writes through nor "
                                       "removes a file it did not make"));
  EXPECT_EQ(slurp(dir / "Cargo.csv.lock"), "[[package]]\nname = \"serde\"\n");
  EXPECT_FALSE(fs::exists(dir / "Cargo.csv"));
  Output bare = run_stasim(grid + (dir / "Cargo").string());
  EXPECT_EQ(bare.code, 2) << bare.text;
  EXPECT_THAT(bare.text, HasSubstr((dir / "Cargo").string() + ": no extension; the format is chosen by the extension"));
  EXPECT_EQ(slurp(dir / "Cargo.lock"), "[[package]]\nname = \"serde\"\n");
  EXPECT_FALSE(fs::exists(dir / "Cargo"));

  // A symbolic link as the lock (to an input, or dangling): never followed, never removed.
  put(dir / "input.yaml", "keep: 1\n");
  fs::create_symlink(dir / "input.yaml", dir / "linked.csv.lock");
  fs::create_symlink(dir / "nowhere", dir / "dangling.csv.lock");
  for (const std::string name : {"linked.csv", "dangling.csv"}) {
    Output o = run_stasim(grid + (dir / name).string());
    EXPECT_EQ(o.code, 2) << o.text;
    EXPECT_THAT(o.text, HasSubstr((dir / name).string() + ".lock: the lock of " + (dir / name).string() +
                                  " is a symbolic link"));
    EXPECT_TRUE(fs::is_symlink(dir / (name + ".lock")));
  }
  EXPECT_EQ(slurp(dir / "input.yaml"), "keep: 1\n");
  EXPECT_FALSE(fs::exists(dir / "nowhere"));

  // The sweep's own lock is made and removed by it; nothing else is left in the folder.
  Output mine = run_stasim(grid + (dir / "mine.csv").string());
  EXPECT_EQ(mine.code, 0) << mine.text;
  EXPECT_FALSE(fs::exists(dir / "mine.csv.lock"));
  int locks = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    locks += entry.path().filename().string().rfind("mine.csv.lock", 0) == 0;
  EXPECT_EQ(locks, 0);
}

// ---- 1./2. Private temporaries, atomic outputs -------------------------------------------------------------

TEST(OutputPolicy, ExportWeightsNeverTouchesAFileNamedLikeATemporary) {
  const fs::path dir = scratch("export");
  const std::string weights = "export-weights --weights synthetic:experts=2 --out ";
  put(dir / "w.safetensors.tmp", "the user's own file\n");
  put(dir / "input.txt", "an input\n");
  fs::create_symlink(dir / "input.txt", dir / "v.safetensors.tmp");
  for (const std::string name : {"w.safetensors", "v.safetensors"}) {
    Output o = run_stasim(weights + (dir / name).string());
    EXPECT_EQ(o.code, 0) << o.text;
    EXPECT_GT(fs::file_size(dir / name), 64u);
  }
  EXPECT_EQ(slurp(dir / "w.safetensors.tmp"), "the user's own file\n");
  EXPECT_EQ(slurp(dir / "input.txt"), "an input\n");
  EXPECT_TRUE(fs::is_symlink(dir / "v.safetensors.tmp"));
  EXPECT_EQ(temporaries_in(dir), 0);
  // Two exports on one --out: the file is one writer's whole checkpoint, never a mix.
  Output both = run_shell(std::string(STASIM_BINARY) + " " + weights + (dir / "x.safetensors").string() + " & " +
                          STASIM_BINARY + " " + weights + (dir / "x.safetensors").string() + "; wait");
  EXPECT_EQ(slurp(dir / "x.safetensors"), slurp(dir / "w.safetensors"));
  EXPECT_EQ(temporaries_in(dir), 0);
}

// A write that fails (here: beyond `ulimit -f`, 1 KiB) leaves the old file as it was and no temporary; exit 2
// with the path and the OS's reason.
TEST(OutputPolicy, AFailedWriteKeepsTheOldFile) {
  const fs::path dir = scratch("atomic");
  const std::string limited = "trap '' XFSZ; ulimit -f 1; " + std::string(STASIM_BINARY) + " ";
  struct Case {
    std::string option, what;
  };
  for (const Case& c : {Case{"--json", "the JSON file"}, Case{"--trace", "the trace file"}, Case{"--ops", "the op table file"}}) {
    const fs::path file = dir / ("old" + c.option.substr(2));
    put(file, "the old contents\n");
    Output o = run_shell(limited + "run --layers 1 --quiet " + c.option + " " + file.string());
    EXPECT_EQ(o.code, 2) << c.option << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(file.string() + ": cannot write " + c.what + " (File too large)")) << c.option;
    EXPECT_EQ(slurp(file), "the old contents\n") << c.option;
  }
  EXPECT_EQ(temporaries_in(dir), 0);

  // merge: the merged output and its .meta.json
  ASSERT_EQ(run_stasim("sweep --layers 1 --d 4 --r 0 --jobs 1 --force --out " + (dir / "part.csv").string()).code, 0);
  put(dir / "merged.csv", "the old merge\n");
  Output merge = run_shell(limited + "merge " + (dir / "part.csv").string() + " --out " + (dir / "merged.csv").string());
  EXPECT_EQ(merge.code, 2) << merge.text;
  EXPECT_THAT(merge.text, HasSubstr("File too large"));
  EXPECT_EQ(slurp(dir / "merged.csv"), "the old merge\n");
  EXPECT_EQ(temporaries_in(dir), 0);
}

// ---- 3. Fail before the work ---------------------------------------------------------------------------------

TEST(OutputPolicy, AnOutThatCannotBeWrittenIsRefusedBeforeAnySimulation) {
  const fs::path dir = scratch("early");
  // 250 characters: a valid name, but not with the temporary's ".tmp.XXXXXX" after it.
  const std::string name = std::string(246, 'n') + ".csv";
  const std::string yaml_name = std::string(245, 'n') + ".yaml";
  struct Case {
    std::string command, option, path;
  };
  for (const Case& c : {Case{"sweep --layers 1 --d 4,8 --r 0 --jobs 1 --out ", "--out", (dir / name).string()},
                        Case{"calibrate --quiet --max-evaluations 3 --out ", "--out", (dir / yaml_name).string()},
                        Case{"represent --weights synthetic:hidden=64,intermediate=32,experts=4 --d 4 --r 8 --K 16 --out ",
                             "--out", (dir / name).string()},
                        Case{"represent --weights synthetic:hidden=64,intermediate=32,experts=4 --d 4 --r 8 --K 16 --json ",
                             "--json", (dir / name).string()}}) {
    const auto start = std::chrono::steady_clock::now();
    Output o = run_stasim(c.command + c.path);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(o.code, 2) << c.command << "\n" << o.text;
    EXPECT_THAT(o.text, HasSubstr(c.option + " " + c.path + ": cannot write it in its folder"));
    EXPECT_THAT(o.text, HasSubstr("is too long a name; use a shorter name"));
    EXPECT_LT(seconds, 30.0) << c.command;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);  // nothing written
}

TEST(OutputPolicy, AnOutInAFolderThatCannotBeWrittenIsRefusedBeforeAnySimulation) {
  const fs::path dir = scratch("readonly");
  // Not testable as root, who may write anywhere.
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: folder permissions do not apply";
  fs::create_directories(dir / "readonly");
  fs::permissions(dir / "readonly", fs::perms::owner_read | fs::perms::owner_exec);
  Output o = run_stasim("sweep --layers 1 --d 4,8 --r 0 --jobs 1 --out " + (dir / "readonly/x.csv").string());
  fs::permissions(dir / "readonly", fs::perms::owner_all);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr("--out " + (dir / "readonly/x.csv").string() + ": cannot write it in its folder"));
  EXPECT_THAT(o.text, HasSubstr("Permission denied"));
}

// ---- 4. Bounded error paths --------------------------------------------------------------------------------

TEST(OutputPolicy, TenThousandUnknownDepsAndAFourMegabyteNameAreReportedAtOnce) {
  const fs::path dir = scratch("suggest");
  {
    std::ofstream many(dir / "many.yaml");
    many << "ops:\n";
    for (int i = 0; i < 10000; ++i)
      many << "  - {name: op_" << i << ", engine: vector, duration_ns: 10, deps: [opx_" << i << "]}\n";
  }
  {
    std::ofstream huge(dir / "huge.yaml");
    huge << "ops:\n  - {name: a, engine: vector, duration_ns: 10}\n  - {name: b, engine: vector, duration_ns: 10, deps: ["
         << std::string(4 << 20, 'x') << "]}\n";
  }
  auto start = std::chrono::steady_clock::now();
  Output many = run_stasim("schedule --schedule " + (dir / "many.yaml").string());
  const double many_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(many.code, 2) << many.text.substr(0, 2000);
  EXPECT_THAT(many.text, HasSubstr("many.yaml:2: op 'op_0': deps: unknown op 'opx_0'"));
  EXPECT_LT(many_seconds, 20.0);

  start = std::chrono::steady_clock::now();
  Output huge = run_stasim("schedule --schedule " + (dir / "huge.yaml").string());
  const double huge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(huge.code, 2);
  EXPECT_THAT(huge.text, HasSubstr("deps: unknown op '" + std::string(256, 'x') + "... (4194304 characters)'"));
  EXPECT_LT(huge.text.size(), 10000u);
  EXPECT_LT(huge_seconds, 20.0);
}

// ---- 9. Left from the last round: values refused with exit 2 ---------------------------------------------------

TEST(InputRefusals, RepresentAndExportRefuseNegativeThreadsAndALayerBeyondTheModel) {
  const std::string represent = "represent --weights synthetic:hidden=64,intermediate=32,experts=4 --d 4 --r 8 --K 16 ";
  Output threads = run_stasim(represent + "--threads=-1");
  EXPECT_EQ(threads.code, 2) << threads.text;
  EXPECT_THAT(threads.text, HasSubstr("--threads -1: 0 (all cores) or more"));
  for (const std::string& command : {represent + "--layer 1000000", "export-weights --layer 1000000 --out " + (scratch("layer") / "w.safetensors").string()}) {
    Output layer = run_stasim(command);
    EXPECT_EQ(layer.code, 2) << command << "\n" << layer.text;
    EXPECT_THAT(layer.text, HasSubstr("--layer 1000000: Qwen3-30B-A3B has 48 layers (0..47)")) << command;
  }
}

TEST(InputRefusals, AJsonKeyTwiceIsRefused) {
  const fs::path dir = scratch("json");
  put(dir / "routes.json", "{\"ids\": [[0, 1]], \"ids\": [[2, 3]]}\n");
  Output o = run_stasim("run --layers 1 --routes " + (dir / "routes.json").string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr((dir / "routes.json").string() + ": key 'ids' appears twice in one object"));
}

TEST(InputRefusals, AScheduleExchangeToItsOwnCoreIsRefused) {
  const fs::path dir = scratch("exchange");
  put(dir / "self.yaml", "ops:\n  - {name: send, engine: dma, core: 1, bytes: 2048, partitions: 1, src: sbuf, dst: core1}\n");
  Output o = run_stasim("schedule --schedule " + (dir / "self.yaml").string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr((dir / "self.yaml").string() +
                                ":2:79: ops[0].dst: core1 is the op's own core (core: 1); an exchange goes to another core"));
  EXPECT_EQ(run_stasim("schedule --quiet --schedule " + shipped("configs/schedules/cross_core_reduce.yaml").string()).code, 0);
}

TEST(InputRefusals, ValidateWithAMissingHardwareInTheReferenceIsBadInput) {
  const fs::path dir = scratch("reference_hw");
  std::string reference = slurp(shipped("configs/reference/published.yaml"));
  reference.replace(reference.find("hardware: trn3"), 14, "hardware: ./nohw.yaml");
  put(dir / "ref.yaml", reference);
  Output o = run_stasim("validate --quiet --reference " + (dir / "ref.yaml").string());
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_THAT(o.text, HasSubstr((dir / "ref.yaml").string() + ":10:1: hardware: no file './nohw.yaml'"));
}

}  // namespace
}  // namespace stasim::test
