// PSUM banks of every simulated core as a blocking resource: an accumulation group takes its bank at the start
// of its first op and keeps it until its release op ends; an op whose bank is held by another group waits, and
// its queue is woken at the release. A release is told when its op is dispatched (its end is known then): the
// bank stays held until that time passes. Counts the peak number of banks held on a core. reset() starts a run
// and keeps the waiter lists' memory, so a release allocates nothing.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/run/run_state.hpp"

namespace stasim {

class PsumBankModel : public PsumArbiter {
 public:
  void reset(RunState& state);

  OpId admit(OpId op, std::uint32_t queue, Picoseconds now_ps) override;
  void finished(OpId op, Picoseconds at_ps) override;
  // Frees every bank whose release time is at or before `now_ps` (a stuck run's report shows the banks then).
  void settle(Picoseconds now_ps);
  std::uint32_t peak_banks() const { return peak_; }
  // The group holding each (core, bank), core-major; 0xFFFFFFFF for a free bank.
  const std::vector<std::uint32_t>& holders() const { return holder_; }
  std::uint32_t banks() const { return banks_; }

 private:
  static constexpr std::uint32_t kFree = 0xFFFFFFFFu;
  static constexpr Picoseconds kNotReleased = -1;
  static constexpr Picoseconds kNever = std::numeric_limits<Picoseconds>::max();
  void settle_core(std::uint32_t core, Picoseconds now_ps);
  std::size_t slot(std::uint32_t core, std::uint32_t bank) const { return core * banks_ + bank; }

  RunState* state_ = nullptr;
  std::uint32_t banks_ = 0;
  std::vector<std::uint32_t> holder_;                 // group holding each (core, bank), or kFree
  std::vector<Picoseconds> release_ps_;               // when the holder's release op ends, or kNotReleased
  std::vector<std::vector<std::uint32_t>> waiters_;   // queues waiting for each (core, bank)
  std::vector<std::uint32_t> waking_;                 // the waiters of a bank being released
  std::vector<std::uint32_t> held_;                   // banks held per core
  std::vector<Picoseconds> first_release_ps_;         // per core: the earliest release told and not applied
  std::uint32_t peak_ = 0;
};

}  // namespace stasim
