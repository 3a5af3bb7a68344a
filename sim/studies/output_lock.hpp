// OutputLock: an exclusive lock on an output that a long study appends to (a sweep's --out), so two sweeps
// cannot interleave their rows in one file. The lock is flock(2) on "<path>.lock", which holds the owner's
// process id for the message; the kernel drops it when the owner exits or dies, so a killed sweep leaves no
// stale lock, and the file is removed when the owner is done.
#pragma once

#include <string>

namespace stasim {

class OutputLock {
 public:
  // Throws InputError naming the process that holds the lock.
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace stasim
