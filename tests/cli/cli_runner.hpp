// Runs the built stasim binary with arguments and captures its exit code and output (stdout and stderr).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace stasim::test {

struct Output {
  int code;
  std::string text;
};

// Runs a shell command line with its stderr joined to its stdout (give a redirection of its own inside
// `{ ...; }` to keep one apart).
inline Output run_shell(const std::string& command) {
  std::string cmd = "{ " + command + "; } 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

inline Output run_stasim(const std::string& args) { return run_shell(std::string(STASIM_BINARY) + " " + args); }

}  // namespace stasim::test
