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

inline Output run_stasim(const std::string& args) {
  std::string cmd = std::string(STASIM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

}  // namespace stasim::test
