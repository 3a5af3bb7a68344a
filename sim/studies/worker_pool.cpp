#include "sim/studies/worker_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>

#include "sim/core/input_error.hpp"
#include "sim/core/pipe_io.hpp"
#include "sim/core/number_text.hpp"

namespace stasim {

struct WorkerPool::Worker {
  pid_t pid = -1;
  int to = -1, from = -1;          // request pipe (written here), reply pipe (read here)
  bool busy = false;
  std::size_t task = 0;
  std::chrono::steady_clock::time_point started;
};

namespace {

// Frames on the pipes: a request is u64 length + bytes; a reply is a status byte (0 done, 1 the task threw),
// u64 length + bytes.
bool send_frame(int fd, const std::string& bytes) {
  std::uint64_t n = bytes.size();
  return write_all(fd, &n, sizeof n) && write_all(fd, bytes.data(), bytes.size());
}

bool receive_frame(int fd, std::string& bytes) {
  std::uint64_t n = 0;
  if (!read_all(fd, &n, sizeof n)) return false;
  bytes.resize(n);
  return read_all(fd, bytes.data(), n);
}

std::string wait_status_text(int status) {
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

WorkerPool::WorkerPool(Task task, int jobs, double time_limit_s)
    : task_(std::move(task)), jobs_(std::max(jobs, 1)), time_limit_s_(std::min(time_limit_s, kMaxTimeLimitS)) {}

WorkerPool::~WorkerPool() {
  // A worker still in a task (run() left by an exception) is killed rather than waited for: its task may hang.
  for (Worker& w : workers_) stop_worker(w, w.busy);
}

void WorkerPool::start_worker(Worker& w) {
  int request[2], reply[2];
  if (::pipe(request) != 0) throw SimulationError(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (::pipe(reply) != 0) {
    ::close(request[0]);
    ::close(request[1]);
    throw SimulationError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw SimulationError(std::string("cannot fork a worker: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker dies with its parent, even if the parent is killed before it can say so.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::signal(SIGPIPE, SIG_DFL);
    ::close(request[1]);
    ::close(reply[0]);
    for (Worker& other : workers_) {  // a sibling's pipes stay the parent's alone
      if (other.to >= 0) ::close(other.to);
      if (other.from >= 0) ::close(other.from);
    }
    std::string input;
    while (receive_frame(request[0], input)) {
      char status = 0;
      std::string output;
      try {
        output = task_(input);
      } catch (const std::exception& e) {
        status = 1;
        output = e.what();
      } catch (...) {
        status = 1;
        output = "unknown exception";
      }
      if (!write_all(reply[1], &status, 1) || !send_frame(reply[1], output)) break;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(request[0]);
  ::close(reply[1]);
  w.pid = pid;
  w.to = request[1];
  w.from = reply[0];
  w.busy = false;
}

void WorkerPool::stop_worker(Worker& w, bool kill) {
  if (w.pid < 0) return;
  if (kill) ::kill(w.pid, SIGKILL);
  if (w.to >= 0) ::close(w.to);  // a worker reading its next request sees the end and exits
  if (w.from >= 0) ::close(w.from);
  int status = 0;
  ::waitpid(w.pid, &status, 0);
  w = Worker{};
}

void WorkerPool::run(const std::vector<std::string>& inputs,
                     const std::function<void(std::size_t, TaskOutcome)>& done) {
  // A write to a worker that just died must fail, not kill this process.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  struct Restore {
    struct sigaction& previous;
    ~Restore() { ::sigaction(SIGPIPE, &previous, nullptr); }
  } restore{previous};

  const std::size_t wanted = std::min<std::size_t>(static_cast<std::size_t>(jobs_), inputs.size());
  if (workers_.size() < wanted) workers_.resize(wanted);
  std::size_t next = 0, finished = 0;
  auto fail = [&](Worker& w, bool kill, const std::string& why) {
    std::size_t task = w.task;
    stop_worker(w, kill);
    ++finished;
    done(task, TaskOutcome{false, "", why});
  };
  while (finished < inputs.size()) {
    // Hand out tasks to idle workers, starting (or restarting) them as needed.
    for (std::size_t k = 0; k < wanted && next < inputs.size(); ++k) {
      Worker& w = workers_[k];
      if (w.busy) continue;
      if (w.pid < 0) start_worker(w);
      w.busy = true;
      w.task = next++;
      w.started = std::chrono::steady_clock::now();
      if (!send_frame(w.to, inputs[w.task])) fail(w, true, "died before it could take its task");
    }
    if (check_) check_();
    // Wait for a reply, or for the first time limit to run out (sleeping in poll: the milliseconds left are
    // clamped to an int, never a busy wait), or until the next check.
    std::vector<pollfd> fds;
    std::vector<std::size_t> of;
    int timeout_ms = -1;
    auto now = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < workers_.size(); ++k) {
      if (!workers_[k].busy) continue;
      fds.push_back({workers_[k].from, POLLIN, 0});
      of.push_back(k);
      if (time_limit_s_ > 0) {
        double left = time_limit_s_ - std::chrono::duration<double>(now - workers_[k].started).count();
        int ms = static_cast<int>(std::clamp(std::ceil(left * 1000.0), 0.0, 1e9));
        timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
      }
    }
    if (fds.empty()) continue;
    if (check_) timeout_ms = timeout_ms < 0 ? kCheckEveryMs : std::min(timeout_ms, kCheckEveryMs);
    int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw SimulationError(std::string("poll failed: ") + std::strerror(errno));
    }
    now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < fds.size(); ++i) {
      Worker& w = workers_[of[i]];
      if (fds[i].revents != 0) {
        char status = 0;
        std::string output;
        if (read_all(w.from, &status, 1) && receive_frame(w.from, output)) {
          w.busy = false;
          ++finished;
          done(w.task, status == 0 ? TaskOutcome{true, std::move(output), ""}
                                   : TaskOutcome{false, "", "failed: " + output});
          continue;
        }
        // The reply never came: the worker died in the task.
        int wstatus = 0;
        ::close(w.to);
        w.to = -1;
        ::waitpid(w.pid, &wstatus, 0);
        std::size_t task = w.task;
        ::close(w.from);
        w = Worker{};
        ++finished;
        done(task, TaskOutcome{false, "", "died before reporting (" + wait_status_text(wstatus) + ")"});
      } else if (time_limit_s_ > 0 && std::chrono::duration<double>(now - w.started).count() >= time_limit_s_) {
        fail(w, true, "ran past the time limit of " + format_double("%g", time_limit_s_) + " s and was stopped");
      }
    }
  }
}

std::vector<TaskOutcome> WorkerPool::run(const std::vector<std::string>& inputs) {
  std::vector<TaskOutcome> out(inputs.size());
  run(inputs, [&out](std::size_t i, TaskOutcome o) { out[i] = std::move(o); });
  return out;
}

}  // namespace stasim
