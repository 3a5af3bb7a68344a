// Class 7 of "Hardening II": loading stays within a small multiple of the input's size. Each case writes a large
// input, runs the binary on it and reads the child's peak RSS (wait4), minus the peak of the same command on a
// tiny input, so only what the input costs is counted. The multiples are the ones README "Robustness" states;
// memory does not depend on machine load, so they are tests (the sanitizer build, whose shadow memory inflates
// RSS, skips them).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Measured {
  int code;
  long peak_kb;
};

// Runs the binary with `args` (output discarded) and returns its exit code and peak resident set.
Measured run_measured(const std::vector<std::string>& args) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(STASIM_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(STASIM_BINARY, argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, usage.ru_maxrss};
}

std::string temp(const std::string& name) { return testing::TempDir() + "hostile_memory_" + name; }

std::uintmax_t write_routes(const std::string& path, std::size_t bytes) {
  std::ofstream out(path);
  out << "ids:\n";
  const std::string row = "- [1, 2, 3, 4, 5, 6, 7, 8]\n";  // 26 bytes, 9 YAML nodes
  for (std::size_t written = 4; written < bytes; written += row.size()) out << row;
  out.close();
  return std::filesystem::file_size(path);
}

TEST(HostileMemory, TwentyMegabyteYamlListLoadsWithinSixteenTimesItsSize) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory inflates RSS";
#endif
  // 20,000,000 bytes = 769,231 rows of 8 expert ids (6.9 million YAML nodes). The run loads and checks the whole
  // list, then refuses it (769,231 routed tokens for a batch of 1): what it cost is the loading.
  const std::uintmax_t bytes = write_routes(temp("big.yaml"), 20000000);
  write_routes(temp("small.yaml"), 30);
  Measured big = run_measured({"run", "--quiet", "--layers", "1", "--routes", temp("big.yaml")});
  Measured small = run_measured({"run", "--quiet", "--layers", "1", "--routes", temp("small.yaml")});
  ASSERT_EQ(big.code, 2);
  const double multiple = double(big.peak_kb - small.peak_kb) * 1024.0 / double(bytes);
  std::printf("20 MB YAML list: peak RSS %ld KB (tiny input %ld KB) = %.1f x the file\n", big.peak_kb, small.peak_kb, multiple);
  // yaml-cpp's own node graph took 160 x (3.2 GB). Now (measured 14.3 x): the text (1 x), the compact document
  // (6.9 million nodes x 16 bytes + 4 bytes a child link = 6.9 x) and the rows read from it (8 bytes an id:
  // 2.8 x) at once, then the trace (4-byte ids and weights: 2.8 x). README "Robustness" states 16 x.
  EXPECT_LE(multiple, 16.0);
}

TEST(HostileMemory, HundredThousandOpScheduleRunsWithinTwoKilobytesPerOp) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory inflates RSS";
#endif
  // A chain of 100,000 ops (a DMA every third op, vector and GpSimd copies between): ~80 bytes of YAML each.
  const std::string path = temp("schedule.yaml");
  {
    std::ofstream out(path);
    out << "ops:\n";
    const char* engines[] = {"vector", "scalar", "gpsimd"};
    for (int i = 0; i < 100000; ++i) {
      std::string deps = i == 0 ? "" : ", deps: [op" + std::to_string(i - 1) + "]";
      if (i % 3 == 0)
        out << "  - {name: op" << i << ", engine: dma, bytes: 65536, queue: " << i % 16 << deps << "}\n";
      else
        out << "  - {name: op" << i << ", engine: " << engines[i % 3] << ", kind: tensor_copy, free: 512" << deps << "}\n";
    }
  }
  const std::string tiny = temp("tiny.yaml");
  std::ofstream(tiny) << "ops:\n  - {name: a, engine: vector, kind: tensor_copy, free: 512}\n";
  Measured big = run_measured({"schedule", "--quiet", "--schedule", path});
  Measured small = run_measured({"schedule", "--quiet", "--schedule", tiny});
  ASSERT_EQ(big.code, 0);
  const double per_op = double(big.peak_kb - small.peak_kb) * 1024.0 / 100000.0;
  const double multiple = double(big.peak_kb - small.peak_kb) * 1024.0 / double(std::filesystem::file_size(path));
  std::printf("100,000-op schedule: peak RSS %ld KB (one op %ld KB) = %.0f bytes per op, %.1f x the file\n", big.peak_kb,
              small.peak_kb, per_op, multiple);
  // It took 2.6 GB (26 KB per op) with yaml-cpp's node graph; load, validate, simulate and report now stay
  // below 2 KB per op.
  EXPECT_LE(per_op, 2048.0);
}

}  // namespace
