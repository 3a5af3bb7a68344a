// Opening the files a user names as input. Only regular files are read (a directory, FIFO, device, socket or
// /dev/zero is refused before anything blocks or grows), text inputs at most kMaxInputFileBytes, and every
// file-system error is an InputError naming the path and the OS's reason (exit code 2), never an internal error.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

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

// The files this process has read as input (read_input_file, regular_file_size), kept once recording is on (the
// command line turns it on; a long-lived embedding such as the Python module does not), so that no output
// replaces a file the command read: a hardware overlay's `base:` chain, the hardware files a reference names,
// checkpoint shards (check_output_paths, sim/core/output_file.hpp). At most kMaxRecordedInputs are kept.
constexpr std::size_t kMaxRecordedInputs = 4096;
struct RecordedInput {
  std::string path;          // as it was opened
  std::uint64_t device = 0;  // st_dev, st_ino of the file read
  std::uint64_t inode = 0;
};
void record_input_files();
std::vector<RecordedInput> recorded_input_files();
// Drops `path` from the record: a file the command reads back on purpose before replacing it (a golden, a
// sweep output being resumed).
void forget_input_file(const std::string& path);

// "a directory", "a FIFO", "a character device", ... for the file type in a stat mode.
std::string file_type_name(unsigned mode);

}  // namespace stasim
