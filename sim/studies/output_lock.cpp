#include "sim/studies/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"

namespace stasim {
namespace {

constexpr const char* kMarker = "stasim sweep lock, pid ";

std::string os_reason(int error) { return std::strerror(error); }

// The holder's process id of a stasim lock's text ("stasim sweep lock, pid N", or the bare "N" of older
// versions); "" when the text is no stasim lock.
std::string lock_pid(const std::string& text) {
  std::string rest = text.rfind(kMarker, 0) == 0 ? text.substr(std::strlen(kMarker)) : text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.pop_back();
  if (rest.empty() || rest.size() > 12) return "";
  for (char c : rest)
    if (!std::isdigit(static_cast<unsigned char>(c))) return "";
  return rest;
}

bool same_file(int fd, const std::string& path) {
  struct stat open_file {}, named {};
  return ::fstat(fd, &open_file) == 0 && ::lstat(path.c_str(), &named) == 0 && open_file.st_ino == named.st_ino &&
         open_file.st_dev == named.st_dev;
}

}  // namespace

OutputLock::OutputLock(const std::string& path) : lock_path_(path + ".lock") {
  const std::string in_the_way = "; stasim neither writes through nor removes a file it did not make: remove it "
                                 "yourself or choose another --out";
  for (int attempt = 0; attempt < 100; ++attempt) {
    // 1. Our own lock, whole and locked before it has its name.
    std::string temporary = lock_path_ + ".XXXXXX";
    int fd = ::mkstemp(temporary.data());
    if (fd < 0) throw InputError(lock_path_ + ": cannot create the lock of " + path + " (" + os_reason(errno) + ")");
    const std::string text = kMarker + std::to_string(::getpid()) + "\n";
    const bool ready = ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
                       ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int write_error = errno;
    if (ready && ::link(temporary.c_str(), lock_path_.c_str()) == 0) {
      ::unlink(temporary.c_str());
      ::fchmod(fd, 0644);
      fd_ = fd;
      return;
    }
    const int link_error = errno;
    ::unlink(temporary.c_str());
    ::close(fd);
    if (!ready) throw InputError(lock_path_ + ": cannot write the lock (" + os_reason(write_error) + ")");
    if (link_error != EEXIST)
      throw InputError(lock_path_ + ": cannot create the lock of " + path + " (" + os_reason(link_error) + ")");
    // 2. The name is taken: a running sweep's lock, a killed sweep's, or a stranger's file.
    int old = ::open(lock_path_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (old < 0) {
      if (errno == ENOENT) continue;  // removed by its owner meanwhile
      if (errno == ELOOP) throw InputError(lock_path_ + ": the lock of " + path + " is a symbolic link" + in_the_way);
      throw InputError(lock_path_ + ": cannot read the lock of " + path + " (" + os_reason(errno) + ")");
    }
    struct stat info {};
    char buffer[64] = {0};
    const ssize_t n = ::fstat(old, &info) == 0 && S_ISREG(info.st_mode) ? ::pread(old, buffer, sizeof buffer - 1, 0) : -1;
    if (n < 0) {
      ::close(old);
      throw InputError(lock_path_ + ": the lock of " + path + " exists and is " +
                       (S_ISREG(info.st_mode) ? "unreadable" : file_type_name(info.st_mode)) + in_the_way);
    }
    const std::string pid = lock_pid(std::string(buffer, static_cast<std::size_t>(n)));
    if (pid.empty()) {
      ::close(old);
      throw InputError(lock_path_ + ": the lock of " + path + " exists and is not a stasim sweep's lock" + in_the_way);
    }
    if (::flock(old, LOCK_EX | LOCK_NB) != 0) {
      ::close(old);
      throw InputError(path + ": process " + pid + " is writing it (lock " + lock_path_ +
                       "); wait for that sweep to finish or choose another --out");
    }
    // A stasim lock nobody holds: its sweep was killed. Removed while we hold its flock, and only if the name
    // still holds it, so no other sweep's new lock is removed.
    if (same_file(old, lock_path_)) ::unlink(lock_path_.c_str());
    ::close(old);
  }
  throw InputError(lock_path_ + ": the lock file keeps being replaced; is another sweep starting on it?");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Still locked: a process waiting on the old file sees it gone and retries.
  if (same_file(fd_, lock_path_)) ::unlink(lock_path_.c_str());
  ::close(fd_);
}

}  // namespace stasim
