// The worker pool (sim/studies/worker_pool.hpp) that sweeps and calibration run their simulations in: results in
// input order from a few reused workers, a worker that dies or throws is reported with its task while the other
// tasks go on, a task past the time limit is stopped and reported, a huge time limit is waited for asleep (no
// busy wait), a wait check that throws stops the run and its workers, and workers die with their parent.
#include <gmock/gmock.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "sim/core/pipe_io.hpp"
#include "sim/studies/worker_pool.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

// "echo x" -> "x@<pid>"; "die" is killed by a signal; "throw" throws; "hang" never returns; "sleep" sleeps 1 s.
std::string task(const std::string& input) {
  if (input == "die") ::raise(SIGKILL);
  if (input == "sleep") {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return "slept@" + std::to_string(::getpid());
  }
  if (input == "throw") throw std::runtime_error("boom");
  if (input == "hang")
    for (;;) ::pause();
  return input.substr(5) + "@" + std::to_string(::getpid());
}

std::string reply_of(const TaskOutcome& o) { return o.output.substr(0, o.output.find('@')); }
std::string pid_of(const TaskOutcome& o) { return o.output.substr(o.output.find('@') + 1); }

TEST(WorkerPool, ResultsComeInInputOrderFromReusedWorkers) {
  WorkerPool pool(task, 3);
  std::vector<std::string> inputs;
  for (int i = 0; i < 10; ++i) inputs.push_back("echo " + std::to_string(i));
  std::vector<TaskOutcome> out = pool.run(inputs);
  ASSERT_EQ(out.size(), 10u);
  std::set<std::string> pids;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(out[i].ok) << out[i].failure;
    EXPECT_EQ(reply_of(out[i]), std::to_string(i));
    pids.insert(pid_of(out[i]));
  }
  // 10 tasks on 3 workers: at most 3 processes, none of them this one.
  EXPECT_LE(pids.size(), 3u);
  EXPECT_EQ(pids.count(std::to_string(::getpid())), 0u);
  // A second run keeps the same workers.
  std::vector<TaskOutcome> again = pool.run({"echo a", "echo b", "echo c"});
  for (const TaskOutcome& o : again) EXPECT_EQ(pids.count(pid_of(o)), 1u) << o.output;
}

TEST(WorkerPool, ADeadOrThrowingTaskIsReportedAndTheOthersGoOn) {
  WorkerPool pool(task, 2);
  std::vector<TaskOutcome> out = pool.run({"echo 0", "die", "echo 2", "throw", "echo 4", "die", "echo 6"});
  ASSERT_EQ(out.size(), 7u);
  for (int i : {0, 2, 4, 6}) {
    ASSERT_TRUE(out[i].ok) << i << ": " << out[i].failure;
    EXPECT_EQ(reply_of(out[i]), std::to_string(i));
  }
  EXPECT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].failure, "died before reporting (signal 9)");
  EXPECT_FALSE(out[3].ok);
  EXPECT_EQ(out[3].failure, "failed: boom");
  EXPECT_FALSE(out[5].ok);
  EXPECT_EQ(out[5].failure, "died before reporting (signal 9)");
}

TEST(WorkerPool, ATaskPastTheTimeLimitIsStoppedAndTheOthersGoOn) {
  WorkerPool pool(task, 2, 0.25);
  std::vector<TaskOutcome> out = pool.run({"hang", "echo 1", "echo 2", "hang", "echo 4"});
  for (int i : {1, 2, 4}) {
    ASSERT_TRUE(out[i].ok) << i << ": " << out[i].failure;
    EXPECT_EQ(reply_of(out[i]), std::to_string(i));
  }
  for (int i : {0, 3}) {
    EXPECT_FALSE(out[i].ok);
    EXPECT_EQ(out[i].failure, "ran past the time limit of 0.25 s and was stopped");
  }
}

double cpu_seconds_of_this_process() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The pool sleeps in poll until a reply or the earliest time limit. A limit at --point-time-limit's top (1e7 s),
// or far past it (1e308, infinity: Python's float), once overflowed the poll timeout to 0: the parent spun a CPU
// for as long as its workers ran. Three tasks of 1 s asleep cost this process well under half a second of CPU.
TEST(WorkerPool, AHugeTimeLimitIsWaitedForAsleep) {
  const double before = cpu_seconds_of_this_process();
  for (double limit : {1e7, 1e308, std::numeric_limits<double>::infinity()}) {
    WorkerPool pool(task, 1, limit);
    std::vector<TaskOutcome> out = pool.run({"sleep"});
    ASSERT_TRUE(out[0].ok) << limit << ": " << out[0].failure;
    EXPECT_EQ(reply_of(out[0]), "slept");
  }
  EXPECT_LT(cpu_seconds_of_this_process() - before, 0.5);
}

// A wait check that throws (Python's KeyboardInterrupt after Ctrl-C) leaves run() with the exception, and the
// pool kills the workers still in their tasks: these hang forever, so a pool that waited for them would not
// return from its destructor.
TEST(WorkerPool, AThrowingWaitCheckStopsTheRunAndItsWorkers) {
  int checks = 0;
  {
    WorkerPool pool(task, 2);
    pool.on_wait([&checks] {
      if (++checks == 3) throw std::runtime_error("interrupted");
    });
    EXPECT_THROW(
        {
          try {
            pool.run({"hang", "hang", "echo 2"});
          } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "interrupted");
            throw;
          }
        },
        std::runtime_error);
  }
  EXPECT_EQ(checks, 3);
}

bool process_gone(pid_t pid) {
  // Gone, or a zombie waiting for an init that does not reap: either way it runs no more.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

TEST(WorkerPool, WorkersDieWithTheirParent) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    // The pool's parent: its worker sends its own pid, then hangs in the task.
    ::close(fds[0]);
    WorkerPool pool(
        [&](const std::string&) {
          pid_t me = ::getpid();
          write_all(fds[1], &me, sizeof me);
          for (;;) ::pause();
          return std::string();
        },
        1);
    pool.run({"x"});
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t worker = 0;
  ASSERT_TRUE(read_all(fds[0], &worker, sizeof worker));
  ::close(fds[0]);
  ASSERT_FALSE(process_gone(worker));
  ::kill(parent, SIGKILL);
  int status = 0;
  ::waitpid(parent, &status, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {  // up to 10 s; the kernel signals it at once
    gone = process_gone(worker);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "worker " << worker << " outlived its parent";
  if (!gone) ::kill(worker, SIGKILL);
}

}  // namespace
}  // namespace stasim::test
