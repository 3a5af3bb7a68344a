// Opening the files a user names as input. Only regular files are read (a directory, FIFO, device, socket or
// /dev/zero is refused before anything blocks or grows), text inputs at most kMaxInputFileBytes, and every
// file-system error is an InputError naming the path and the OS's reason (exit code 2), never an internal error.
#pragma once

#include <cstdint>
#include <string>

namespace stasim {

// 64 MiB: ~16x the largest shipped or generated input (a 100,000-op schedule is ~6 MB), and small enough that
// the parsed document stays within the memory README "Robustness" states.
constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{64} << 20;

// The whole text of `path`; `what` names the file's role in messages ("the routes file"). A file beyond `limit`
// bytes is refused with the limit.
std::string read_input_file(const std::string& path, const std::string& what,
                            std::uint64_t limit = kMaxInputFileBytes);

// Checks that `path` is an existing regular file (symlinks followed) and returns its size, for inputs read in
// ranges rather than whole (safetensors checkpoints).
std::uint64_t regular_file_size(const std::string& path, const std::string& what);

// "a directory", "a FIFO", "a character device", ... for the file type in a stat mode.
std::string file_type_name(unsigned mode);

}  // namespace stasim
