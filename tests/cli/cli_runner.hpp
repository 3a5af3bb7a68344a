// The scaffolding of the CLI tests: run a shell command or the built stasim binary and capture its exit code and
// output, expand the {placeholders} of a case's command, and check that no line of a report is printed twice.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace stasim::test {

struct Output {
  int code;          // the exit code, -1 when the command did not exit normally
  std::string text;  // stdout and stderr together (or stdout alone: run_stasim_split)
};

// A scratch folder of its own (TempDir()/<prefix><name>), emptied first: a test's outputs must not exist yet.
inline std::string fresh_dir(const std::string& prefix, const std::string& name) {
  const std::string dir = testing::TempDir() + prefix + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The whole file at `path`, byte for byte ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` through sh, stdout and stderr captured together.
inline Output run_shell(const std::string& command) {
  FILE* pipe = popen(("(" + command + ") 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string text;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// Runs the built binary with `args` (shell words), stdout and stderr together.
inline Output run_stasim(const std::string& args) { return run_shell(std::string(STASIM_BINARY) + " " + args); }

// The same with stdout and stderr apart: `text` is stdout alone, `errors` what went to stderr.
struct SplitOutput {
  int code;
  std::string text, errors;
};
inline SplitOutput run_stasim_split(const std::string& args, const std::string& stderr_file) {
  Output o = run_shell(std::string(STASIM_BINARY) + " " + args + " 2>" + stderr_file);
  std::ifstream in(stderr_file);
  std::stringstream errors;
  errors << in.rdbuf();
  return {o.code, o.text, errors.str()};
}

// Replaces every occurrence of each `from` in `text` by its `to`, in order.
inline std::string replace_all(std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
  for (const auto& [from, to] : subs)
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

// Replaces the first `from` in a case's template; a template without it is a broken case.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "no '" << from << "' in the template";
  else text.replace(at, from.size(), to);
  return text;
}

// The extension a case's command gives its input file: ".yaml" for "--routes {file}.yaml", "" for "{file}".
inline std::string file_suffix(const std::string& command) {
  std::size_t at = command.find("{file}");
  if (at == std::string::npos) return "";
  std::size_t end = command.find(' ', at);
  return command.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
}

// Each problem is reported once: fails on any non-empty line printed twice.
inline void expect_no_line_twice(const std::string& text) {
  std::istringstream lines(text);
  std::set<std::string> seen;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) {
      EXPECT_TRUE(seen.insert(line).second) << "printed twice: " << line;
    }
  }
}

// A small valid MoE model that the bad-input catalogs break one line at a time (line numbers refer to this text).
inline const std::string kTinyModel =
    "name: tiny-moe\n"             // 1
    "layers: 2\n"                  // 2
    "hidden: 2048\n"               // 3
    "vocab: 1024\n"                // 4
    "moe:\n"                       // 5
    "  experts: 16\n"              // 6
    "  top_k: 2\n"                 // 7
    "  intermediate: 768\n"        // 8
    "  activation: swiglu\n"       // 9
    "attention:\n"                 // 10
    "  kind: gqa\n"                // 11
    "  q_heads: 16\n"              // 12
    "  kv_heads: 4\n"              // 13
    "  head_dim: 128\n"            // 14
    "router:\n"                    // 15
    "  kind: softmax\n"            // 16
    "deployment:\n"                // 17
    "  tp: 4\n"                    // 18
    "  lnc: 2\n"                   // 19
    "  batch: 1\n";                // 20

}  // namespace stasim::test
