// OutputLock: an exclusive lock on an output that a long study appends to (a sweep's --out), so two sweeps
// cannot interleave their rows in one file. The lock is "<path>.lock", a file this program makes itself: written
// whole under a private name (mkstemp), flock(2)ed, then linked to "<path>.lock" (link never replaces an existing
// file nor follows a symbolic link). It holds "stasim sweep lock, pid N" for the message. The kernel drops the
// flock when the owner exits or dies; a lock file left by a killed sweep (a stasim lock nobody holds) is taken
// over. Anything else of that name (a Cargo.lock, a symbolic link, a folder) is refused, never written through
// or removed. The owner removes the lock when done, and only while the name still holds its own file.
#pragma once

#include <string>

namespace stasim {

class OutputLock {
 public:
  // Throws InputError naming the process that holds the lock, or the file in the way.
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

}  // namespace stasim
