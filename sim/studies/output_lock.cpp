#include "sim/studies/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/core/input_error.hpp"

namespace stasim {

OutputLock::OutputLock(const std::string& path) : lock_path_(path + ".lock") {
  // The lock file can be removed by its previous owner between open and flock: lock, then check that the path
  // still names the locked file, and try again when it does not.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw InputError(lock_path_ + ": cannot create the lock of " + path + " (" + std::strerror(errno) + ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char holder[32] = {0};
      ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
      ::close(fd);
      std::string who = n > 0 ? "process " + std::string(holder, static_cast<std::size_t>(n)) : "another process";
      while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
      throw InputError(path + ": " + who + " is writing it (lock " + lock_path_ +
                       "); wait for that sweep to finish or choose another --out");
    }
    struct stat locked {}, named {};
    if (::fstat(fd, &locked) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && locked.st_ino == named.st_ino &&
        locked.st_dev == named.st_dev) {
      std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
        throw InputError(lock_path_ + ": cannot write the lock (" + std::strerror(errno) + ")");
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
  throw InputError(lock_path_ + ": the lock file keeps being replaced; is another sweep starting on it?");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // still locked: a process waiting on the old file sees it gone and retries
  ::close(fd_);
}

}  // namespace stasim
