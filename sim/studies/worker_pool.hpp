// WorkerPool: runs tasks in up to `jobs` long-lived forked workers, each of which runs task after task on its
// own simulation kernel (one kernel per process, reused), so parallel studies fork once per worker, not once
// per simulation. A task is a byte string in and a byte string out. A worker that dies (a crash, a sanitizer
// abort) or overruns the time limit is killed and replaced; its task is reported as failed, with why, and the
// others go on. Workers die with their parent (PR_SET_PDEATHSIG) and when the pool is destroyed.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace stasim {

struct TaskOutcome {
  bool ok = false;
  std::string output;    // the task's result (ok)
  std::string failure;   // why there is none: "its process died (signal 11)", "it ran past the time limit of 60 s"
};

class WorkerPool {
 public:
  // `task` runs in the workers: forked copies of this process, made when run() needs them, so it may read
  // anything the caller holds while run() runs.
  using Task = std::function<std::string(const std::string& input)>;
  // A time limit above kMaxTimeLimitS (e.g. 1e308 from Python) is taken as kMaxTimeLimitS.
  static constexpr double kMaxTimeLimitS = 1e7;
  WorkerPool(Task task, int jobs, double time_limit_s = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs every input; `done(index, outcome)` is called in this process as each finishes (completion order).
  void run(const std::vector<std::string>& inputs, const std::function<void(std::size_t, TaskOutcome)>& done);
  // Called in this process while run() waits for workers, at least every kCheckEveryMs: may throw (e.g. a
  // KeyboardInterrupt from Python), which leaves run() with its busy workers killed.
  static constexpr int kCheckEveryMs = 100;
  void on_wait(std::function<void()> check) { check_ = std::move(check); }
  // The outcomes in input order.
  std::vector<TaskOutcome> run(const std::vector<std::string>& inputs);

 private:
  struct Worker;
  void start_worker(Worker& w);
  void stop_worker(Worker& w, bool kill);

  Task task_;
  int jobs_;
  double time_limit_s_;
  std::function<void()> check_;
  std::vector<Worker> workers_;
};

}  // namespace stasim
