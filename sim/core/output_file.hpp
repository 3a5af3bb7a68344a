// Writing the files a user names as output. Every write and the close are checked: a full disk, a failing
// device or a missing folder is an InputError naming the path and the OS's reason (exit code 2), never a lost
// output with exit code 0. Files that must never be seen half-written are written to a temporary file beside
// them and renamed over the old one, which is only done over a regular file (renaming over /dev/null would
// replace the device); a special file is refused for them.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace stasim {

// The output policy (README "Robustness"): every file an output option names is
//  - written whole or not at all: into a private temporary beside it ("NAME.tmp.XXXXXX", made by mkstemp, so never a
//    file that was there before and never through a symbolic link), then renamed over it; a failed write removes
//    the temporary and leaves the old file as it was (the message names the path and the OS's reason);
//  - never an input of the command: check_output_paths compares real paths and inodes with the inputs named and
//    with every file the command has read (recorded_input_files: `base:` chains, checkpoints, the hardware of a
//    reference), and the writers below refuse, at the last moment, to replace a file the command read;
//  - checked before the work: check_output_writable makes and removes the temporary once.
// Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written directly where an output may stream to them.

// Writes `text` to `path`: "-" is standard output (stdout_data()), a device or pipe is written directly, a regular
// or new file is replaced whole (replace_output_file). `what` names the file's role in messages ("the trace file").
void write_output_file(const std::string& path, const std::string& text, const std::string& what);

// Writes `text` to `path` all at once: into a private temporary beside it, then renamed over `path`. `path` must be
// new or a regular file; on any failure the temporary file is removed and `path` keeps its old contents.
void replace_output_file(const std::string& path, const std::string& text, const std::string& what);

// Refuses (InputError) a path that exists and is not a regular file, for outputs replaced by rename, and "-"
// (stdout for the streamed outputs; these files are renamed into place, and a sweep's is read back by --resume).
void require_replaceable(const std::string& path, const std::string& what);

// Before any work: `path` (a new or regular file) can be replaced, i.e. its folder exists, is writable and takes
// the temporary's longer name. InputError "OPTION PATH: ..." otherwise. "" and "-" pass.
void check_output_writable(const std::string& option, const std::string& path);

// A file streamed to a private temporary beside `path` (large outputs: checkpoints) and renamed over `path` by
// commit(); destroyed without commit, the temporary is removed and `path` is untouched.
class ReplacingOutput {
 public:
  ReplacingOutput(const std::string& path, const std::string& what);
  ~ReplacingOutput();
  ReplacingOutput(const ReplacingOutput&) = delete;
  ReplacingOutput& operator=(const ReplacingOutput&) = delete;
  void append(const std::string& text) { append(text.data(), text.size()); }
  void append(const void* data, std::size_t size);
  void commit();

 private:
  std::string path_, what_, target_, temporary_;
  int fd_ = -1;
};

// Lines appended to a file as they are produced (a sweep's rows): each append is written and flushed at once,
// so what was written survives a kill, and a failed write is an InputError naming the path.
class OutputAppender {
 public:
  // Opens `path` for appending, or truncates it when `truncate`.
  OutputAppender(const std::string& path, bool truncate, const std::string& what);
  ~OutputAppender();
  OutputAppender(const OutputAppender&) = delete;
  OutputAppender& operator=(const OutputAppender&) = delete;
  void append(const std::string& text) { append(text.data(), text.size()); }
  void append(const void* data, std::size_t size);
  void close();  // checked; the destructor closes unchecked

 private:
  std::string path_, what_;
  int fd_ = -1;
};

// An option and the path it names ("--json", "out.json").
using NamedPath = std::pair<std::string, std::string>;

// Two outputs naming the same file, or an output naming one of the inputs (those given, and every file the command
// has read so far: recorded_input_files), is an InputError naming both (one would overwrite the other, or the
// input), and so are two options writing to stdout ("-"). Files are the same when their real paths (symbolic
// links and "..", weakly_canonical) or existing inodes are. Unnamed ("") outputs are skipped; devices (/dev/null)
// may be named twice.
void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// Flushes stdout and reports a write error on it (a full disk under `> file`, a closed pipe): the message, or
// "" when everything printed reached it.
std::string stdout_error();
// Routes std::cout through a recorder of the first write error, for stdout_error (called once, in main).
void watch_stdout();
// Where an output named "-" is written: standard output even when the human reports on std::cout are muted, so
// `--json -` gives pure JSON on stdout.
std::ostream& stdout_data();
// From now on standard output (the human reports: tables, summaries, printf or std::cout, also of child
// processes) goes to /dev/null; stdout_data() still writes to the real standard output.
void mute_stdout_reports();
// The same for standard error (progress, notes); returns the stream that still reaches the real standard error,
// for the error messages.
std::ostream& mute_stderr_reports();

}  // namespace stasim
