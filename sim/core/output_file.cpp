#include "sim/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"

namespace stasim {
namespace {

namespace fs = std::filesystem;

InputError write_error(const std::string& path, const std::string& what, int error) {
  return InputError(path + ": cannot write " + what + " (" + std::strerror(error) + ")");
}

void write_whole(int fd, const void* data, std::size_t size, const std::string& path, const std::string& what) {
  const char* p = static_cast<const char*>(data);
  std::size_t left = size;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw write_error(path, what, n < 0 ? errno : EIO);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void close_checked(int fd, const std::string& path, const std::string& what) {
  // Some file systems (NFS, full quotas) report a failed write only here.
  if (::close(fd) != 0 && errno != EINTR) throw write_error(path, what, errno);
}

// The file a rename must replace: `path` itself, or what a symbolic link at `path` points to (replacing the
// link by a regular file would leave its target stale).
std::string rename_target(const std::string& path) {
  std::error_code error;
  if (!fs::is_symlink(path, error)) return path;
  fs::path target = fs::canonical(path, error);
  if (error) throw InputError(path + ": a symbolic link that cannot be followed (" + error.message() + ")");
  return target.string();
}

mode_t new_file_mode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

namespace {

// A device or pipe written directly: an existing file that is not regular, or a path into /dev or /proc
// (/dev/stdout redirected to a regular file must be written through the shell's descriptor, not renamed over).
bool streams_directly(const std::string& path) {
  if (path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) return true;
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
}

// The last guard of the policy: `target` is no file this command read.
void refuse_recorded_input(const std::string& path, const std::string& target, const std::string& what) {
  struct stat info {};
  if (::stat(target.c_str(), &info) != 0) return;
  for (const RecordedInput& input : recorded_input_files())
    if (input.device == static_cast<std::uint64_t>(info.st_dev) && input.inode == static_cast<std::uint64_t>(info.st_ino))
      throw InputError(path + ": cannot write " + what + " over " + input.path +
                       ", an input this command read (writing it would destroy the input); name another file");
}

// A private temporary beside `target`: "TARGET.tmp.XXXXXX" created by mkstemp (O_EXCL: never an existing file,
// never through a symbolic link), with the mode the replaced file has (or a new file's).
int make_temporary(const std::string& path, const std::string& target, const std::string& what, std::string& temporary) {
  struct stat old {};
  const mode_t mode = ::stat(target.c_str(), &old) == 0 ? (old.st_mode & 07777) : new_file_mode();
  temporary = target + ".tmp.XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    const int error = errno;
    temporary.clear();
    if (error == ENAMETOOLONG)
      throw InputError(path + ": cannot write " + what + " (" + std::strerror(error) + ": its temporary '" +
                       fs::path(target).filename().string() + ".tmp.XXXXXX' beside it is too long a name; use a shorter name)");
    throw write_error(path, what, error);
  }
  if (::fchmod(fd, mode) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    temporary.clear();
    throw write_error(path, what, error);
  }
  return fd;
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text, const std::string& what) {
  if (path == "-") {  // the convention of every output option: "-" is standard output
    stdout_data() << text;
    return;
  }
  if (!streams_directly(path)) {
    replace_output_file(path, text, what);
    return;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw write_error(path, what, errno);
  try {
    write_whole(fd, text.data(), text.size(), path, what);
  } catch (...) {
    ::close(fd);
    throw;
  }
  close_checked(fd, path, what);
}

void require_replaceable(const std::string& path, const std::string& what) {
  // "-" is stdout for the outputs that stream (--json, --trace, ...); these are files renamed into place.
  if (path == "-")
    throw InputError("'-' (stdout): " + what + " is written to a file (beside the old one, then renamed over it), "
                     "not to stdout; name a file");
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return;  // a new file (a missing folder is reported when writing)
    throw InputError(path + ": cannot write " + what + " (" + std::strerror(errno) + ")");
  }
  if (!S_ISREG(info.st_mode))
    throw InputError(path + ": " + what + " must be a regular file, not " + file_type_name(info.st_mode) +
                     " (it is written beside and renamed over the old file, which would replace " +
                     file_type_name(info.st_mode) + ")");
}

void check_output_writable(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-" || streams_directly(path)) return;
  std::error_code error;
  if (fs::is_directory(path, error)) throw InputError(option + " " + path + ": is a folder; name a file");
  const std::string target = rename_target(path);
  const fs::path folder = fs::path(target).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, error)) return;  // made by the command, or reported by it
  std::string temporary;
  try {
    const std::string where = folder.empty() ? std::string(".") : folder.string();
    int fd = make_temporary(path, target, "it in its folder '" + where + "'", temporary);
    ::close(fd);
    ::unlink(temporary.c_str());
  } catch (const InputError& e) {
    throw InputError(option + " " + e.what());
  }
}

ReplacingOutput::ReplacingOutput(const std::string& path, const std::string& what) : path_(path), what_(what) {
  require_replaceable(path, what);
  target_ = rename_target(path);
  refuse_recorded_input(path, target_, what);
  fd_ = make_temporary(path, target_, what, temporary_);
}

ReplacingOutput::~ReplacingOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void ReplacingOutput::append(const void* data, std::size_t size) {
  if (fd_ < 0) throw write_error(path_, what_, EBADF);
  write_whole(fd_, data, size, path_, what_);
}

void ReplacingOutput::commit() {
  if (fd_ < 0) throw write_error(path_, what_, EBADF);
  const int fd = fd_;
  fd_ = -1;
  close_checked(fd, path_, what_);
  refuse_recorded_input(path_, target_, what_);
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) throw write_error(path_, what_, errno);
  temporary_.clear();
}

void replace_output_file(const std::string& path, const std::string& text, const std::string& what) {
  ReplacingOutput out(path, what);
  out.append(text);
  out.commit();
}

OutputAppender::OutputAppender(const std::string& path, bool truncate, const std::string& what)
    : path_(path), what_(what) {
  refuse_recorded_input(path, path, what);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0666);
  if (fd_ < 0) throw write_error(path_, what_, errno);
}

OutputAppender::~OutputAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputAppender::append(const void* data, std::size_t size) {
  if (fd_ < 0) throw write_error(path_, what_, EBADF);
  write_whole(fd_, data, size, path_, what_);
}

void OutputAppender::close() {
  if (fd_ < 0) return;
  int fd = fd_;
  fd_ = -1;
  close_checked(fd, path_, what_);
}

void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  // Two names are the same file when they resolve to the same existing inode, or to the same new path.
  struct Identity {
    bool device = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string path;
  };
  auto identity = [](const std::string& path) {
    Identity id;
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0) {
      id.device = !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
      id.dev = info.st_dev;
      id.ino = info.st_ino;
      return id;
    }
    std::error_code error;
    id.path = fs::weakly_canonical(fs::absolute(path, error), error).string();
    return id;
  };
  auto same = [](const Identity& a, const Identity& b) {
    if (a.device || b.device) return false;
    if (a.path.empty() != b.path.empty()) return false;
    return a.path.empty() ? a.dev == b.dev && a.ino == b.ino : a.path == b.path;
  };
  auto named = [](const NamedPath& p) { return !p.second.empty() && p.second != "-"; };
  // Standard output takes one of them: two would interleave.
  const NamedPath* on_stdout = nullptr;
  for (const NamedPath& output : outputs)
    if (output.second == "-") {
      if (on_stdout && on_stdout->first != output.first)
        throw InputError(output.first + " -: " + on_stdout->first + " already writes to stdout ('-'); name a file for one");
      on_stdout = &output;
    }
  const std::vector<RecordedInput> recorded = recorded_input_files();
  std::vector<Identity> seen;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    seen.push_back(identity(outputs[i].second));
    if (!named(outputs[i])) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (named(outputs[j]) && same(seen[i], seen[j]))
        throw InputError(outputs[i].first + " " + outputs[i].second + ": the same file as " + outputs[j].first + " " +
                         outputs[j].second + " (one output would overwrite the other)");
    for (const NamedPath& input : inputs)
      if (named(input) && same(seen[i], identity(input.second)))
        throw InputError(outputs[i].first + " " + outputs[i].second + ": the same file as the input " + input.first +
                         " " + input.second + " (writing it would destroy the input)");
    if (!seen[i].path.empty() || seen[i].device) continue;  // a new file or a device: no input it could be
    for (const RecordedInput& input : recorded)
      if (input.device == static_cast<std::uint64_t>(seen[i].dev) && input.inode == static_cast<std::uint64_t>(seen[i].ino))
        throw InputError(outputs[i].first + " " + outputs[i].second + ": the same file as " + input.path +
                         ", an input this command read (writing it would destroy the input)");
  }
}

namespace {

// The first OS error of a write to stdout. stdio forgets it once a failed flush (an std::endl mid-report) has
// dropped its buffer, so std::cout's writes pass through this recorder, which keeps errno at the failure.
int stdout_errno = 0;

class RecordingBuf : public std::streambuf {
 public:
  explicit RecordingBuf(std::streambuf* inner) : inner_(inner) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    errno = 0;
    int_type r = inner_->sputc(traits_type::to_char_type(c));
    if (traits_type::eq_int_type(r, traits_type::eof())) record();
    return r;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    errno = 0;
    std::streamsize written = inner_->sputn(s, n);
    if (written < n) record();
    return written;
  }
  int sync() override {
    errno = 0;
    int r = inner_->pubsync();
    if (r != 0) record();
    return r;
  }

 private:
  static void record() {
    if (stdout_errno == 0) stdout_errno = errno ? errno : EIO;
  }
  std::streambuf* inner_;
};

// Where stdout_data() writes: C's stdout, or once the reports are muted, the real standard output saved aside.
std::FILE* data_file = nullptr;
std::FILE* data_target() { return data_file ? data_file : stdout; }

// Writes straight to `file`, or to data_target() recording the first failure like RecordingBuf.
class DataBuf : public std::streambuf {
 public:
  explicit DataBuf(std::FILE* file = nullptr) : file_(file) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    errno = 0;
    if (std::fputc(traits_type::to_char_type(c), target()) == EOF) return record(), traits_type::eof();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    errno = 0;
    const std::size_t written = std::fwrite(s, 1, static_cast<std::size_t>(n), target());
    if (written < static_cast<std::size_t>(n)) record();
    return static_cast<std::streamsize>(written);
  }
  int sync() override {
    errno = 0;
    if (std::fflush(target()) != 0) return record(), -1;
    return 0;
  }

 private:
  std::FILE* target() const { return file_ ? file_ : data_target(); }
  void record() const {
    if (!file_ && stdout_errno == 0) stdout_errno = errno ? errno : EIO;
  }
  std::FILE* file_;
};

// Points file descriptor `fd` at /dev/null and returns a stream on a copy of what it was.
std::FILE* divert_to_null(int fd) {
  const int saved = ::dup(fd);
  const int null = ::open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0) throw InputError(std::string("cannot mute the reports: ") + std::strerror(errno));
  ::dup2(null, fd);
  ::close(null);
  return ::fdopen(saved, "w");
}

}  // namespace

void watch_stdout() {
  // Never destroyed: std::cout is flushed by the library's own exit handler, after every static object of ours
  // is gone, and it must still find its buffer then (a static object here was a use after free at exit).
  static RecordingBuf* const buf = new RecordingBuf(std::cout.rdbuf());
  std::cout.rdbuf(buf);
}

std::ostream& stdout_data() {
  static DataBuf* const buf = new DataBuf;                    // never destroyed, as in watch_stdout
  static std::ostream* const out = new std::ostream(buf);
  return *out;
}

void mute_stdout_reports() {
  if (data_file) return;
  std::cout.flush();
  std::fflush(stdout);
  data_file = divert_to_null(STDOUT_FILENO);
  // The data is written in large blocks, as redirected stdout is (tools/cli.cpp).
  std::setvbuf(data_file, nullptr, _IOFBF, std::size_t{1} << 20);
}

std::ostream& mute_stderr_reports() {
  static std::ostream* errors = nullptr;
  if (!errors) {
    std::cerr.flush();
    std::fflush(stderr);
    std::FILE* saved = divert_to_null(STDERR_FILENO);
    std::setvbuf(saved, nullptr, _IONBF, 0);
    errors = new std::ostream(new DataBuf(saved));  // never destroyed, as in watch_stdout
  }
  return *errors;
}

std::string stdout_error() {
  stdout_data().flush();
  std::cout.flush();
  errno = 0;
  bool failed = std::fflush(stdout) != 0;
  if (data_file) failed = std::fflush(data_file) != 0 || std::ferror(data_file) || failed;
  int error = stdout_errno ? stdout_errno : errno;
  if (!failed && !std::ferror(stdout) && std::cout.good() && stdout_errno == 0) return "";
  return std::string("cannot write to standard output (") + (error ? std::strerror(error) : "a write failed") + ")";
}

}  // namespace stasim
