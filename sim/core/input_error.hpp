// Errors that leave stasim. InputError is bad input (exit code 2) and carries every problem found, each
// already naming its file, line and key or op; SimulationError is a run that cannot complete (exit code 1).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/edit_distance.hpp"  // nearest_match: the did-you-mean of every error message

namespace stasim {

class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<std::string> problems);
  explicit InputError(const std::string& problem) : InputError(std::vector<std::string>{problem}) {}
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run that ended with ops never executed (sim/kernel/deadlock_report.hpp says which and why). A builder's graph
// that deadlocks is a bug (exit code 1); a user's schedule file that deadlocks is bad input, which the command
// running it reports as an InputError.
class DeadlockError : public SimulationError {
 public:
  using SimulationError::SimulationError;
};

// Collects problems so that one pass reports all of them at once. Beyond kMaxListed only a count is kept, so a
// file with a million bad entries gets a readable report in linear time and memory.
class Problems {
 public:
  static constexpr std::size_t kMaxListed = 200;
  void add(std::string problem) {
    if (list_.size() < kMaxListed) list_.push_back(std::move(problem));
    else ++unlisted_;
  }
  bool empty() const { return list_.empty(); }
  std::size_t count() const { return list_.size() + unlisted_; }
  const std::vector<std::string>& list() const { return list_; }
  void throw_if_any() const {
    if (list_.empty()) return;
    std::vector<std::string> all = list_;
    if (unlisted_ > 0) all.push_back("(and " + std::to_string(unlisted_) + " more problems)");
    throw InputError(all);
  }

 private:
  std::vector<std::string> list_;
  std::size_t unlisted_ = 0;
};

}  // namespace stasim
