// ActivityMeter: each engine's active time (the union of its ops' [start, end) intervals, the profiler's
// definition: sim/kernel/result_summary.hpp), per physical core and over all of them, measured while the kernel
// runs. Starts arrive in time order (the kernel's clock only moves forward); an end is told when it happens or
// before (an engine knows when its instruction's result is written the moment it dispatches it), never before
// its op's start. So the union is a series of runs: each slot keeps the start of the current run, the latest
// end told and how many started ops have not told theirs; a start after a gap (nothing running, every end told
// in the past) closes the run. Two ops that touch (one ends when the next starts) count as one run in either
// order of their events. Summarizing a run then needs no merge of the queues by start time, which cost as much
// as a tenth of a large run's wall time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim {

class ActivityMeter {
 public:
  // Starts a run on `cores` physical cores: every engine idle, no time counted.
  void reset(std::uint32_t cores) {
    cores_ = cores;
    slots_.assign((std::size_t{cores} + 1) * kEngineCount, Slot{});
  }
  // An op of (core, engine) starts at `now_ps`, no earlier than any start before.
  void started(std::uint8_t core, Engine engine, Picoseconds now_ps) {
    open(slots_[per_core(core, engine)], now_ps);
    open(slots_[all(engine)], now_ps);
  }
  // An op of (core, engine) that started ends at `end_ps` (now or later).
  void finished(std::uint8_t core, Engine engine, Picoseconds end_ps) {
    close(slots_[per_core(core, engine)], end_ps);
    close(slots_[all(engine)], end_ps);
  }
  // After a run in which every started op finished: the active time of (core, engine), core-major, then of
  // each engine over all cores (`(cores + 1) * kEngineCount` values).
  std::vector<Picoseconds> active_ps() const {
    std::vector<Picoseconds> out;
    out.reserve(slots_.size());
    for (const Slot& s : slots_) out.push_back(s.total_ps + (s.until_ps - s.since_ps));
    return out;
  }

 private:
  struct Slot {
    std::uint32_t running = 0;  // started ops whose end is not told yet
    Picoseconds since_ps = 0;   // the current run's start
    Picoseconds until_ps = 0;   // the latest end told (the current run's end once nothing is running)
    Picoseconds total_ps = 0;   // the runs closed before the current one
  };
  static void open(Slot& s, Picoseconds now_ps) {
    if (s.running++ == 0 && now_ps > s.until_ps) {  // a gap: the current run is over
      s.total_ps += s.until_ps - s.since_ps;
      s.since_ps = s.until_ps = now_ps;
    }
  }
  static void close(Slot& s, Picoseconds end_ps) {
    --s.running;
    s.until_ps = std::max(s.until_ps, end_ps);
  }
  std::size_t per_core(std::uint8_t core, Engine engine) const {
    return std::size_t{core} * kEngineCount + static_cast<std::size_t>(engine);
  }
  std::size_t all(Engine engine) const { return std::size_t{cores_} * kEngineCount + static_cast<std::size_t>(engine); }

  std::uint32_t cores_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace stasim
