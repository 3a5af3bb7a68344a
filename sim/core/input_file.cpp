#include "sim/core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "sim/core/input_error.hpp"

namespace stasim {
namespace {

std::string os_reason(int error) { return std::strerror(error); }

std::string megabytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Closes the descriptor on every path out of read_input_file.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

void require_regular(const struct stat& info, const std::string& path, const std::string& what) {
  if (!S_ISREG(info.st_mode))
    throw InputError(path + ": " + what + " must be a regular file, not " + file_type_name(info.st_mode));
}

struct InputRecord {
  std::mutex mutex;
  bool on = false;
  std::vector<RecordedInput> files;
};
InputRecord& input_record() {
  static InputRecord* const record = new InputRecord;  // never destroyed: read by code running at exit
  return *record;
}

void record(const std::string& path, const struct stat& info) {
  InputRecord& r = input_record();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.on || r.files.size() >= kMaxRecordedInputs) return;
  for (const RecordedInput& f : r.files)
    if (f.device == static_cast<std::uint64_t>(info.st_dev) && f.inode == static_cast<std::uint64_t>(info.st_ino)) return;
  r.files.push_back({path, static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)});
}

}  // namespace

void record_input_files() {
  InputRecord& r = input_record();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.on = true;
}

std::vector<RecordedInput> recorded_input_files() {
  InputRecord& r = input_record();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.files;
}

void forget_input_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return;
  InputRecord& r = input_record();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.files.begin(); it != r.files.end();)
    if (it->device == static_cast<std::uint64_t>(info.st_dev) && it->inode == static_cast<std::uint64_t>(info.st_ino))
      it = r.files.erase(it);
    else
      ++it;
}

std::string file_type_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

std::uint64_t regular_file_size(const std::string& path, const std::string& what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(path + ": cannot open " + what + " (" + os_reason(errno) + ")");
  require_regular(info, path, what);
  record(path, info);
  return static_cast<std::uint64_t>(info.st_size);
}

std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t limit) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before fstat can refuse it.
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) throw InputError(path + ": cannot open " + what + " (" + os_reason(errno) + ")");
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw InputError(path + ": cannot read " + what + " (" + os_reason(errno) + ")");
  require_regular(info, path, what);
  record(path, info);
  auto too_large = [&] {
    return InputError(path + ": " + what + " is larger than the " + megabytes(limit) +
                      " an input file may have (README \"Robustness\")");
  };
  if (static_cast<std::uint64_t>(info.st_size) > limit) throw too_large();
  std::string text;
  text.resize(static_cast<std::size_t>(info.st_size));
  std::size_t used = 0;
  // Reads until end of file even if the file grew since fstat, but never past the limit.
  for (;;) {
    if (used == text.size()) {
      if (text.size() > limit) throw too_large();
      text.resize(std::max<std::size_t>(text.size() * 2, 4096));
    }
    ssize_t n = ::read(file.fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read " + what + " (" + os_reason(errno) + ")");
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  if (used > limit) throw too_large();
  text.resize(used);
  return text;
}

}  // namespace stasim
