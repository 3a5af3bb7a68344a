// ActivityMeter: each engine's active time (the union of its ops' [start, end) intervals, the profiler's
// definition: sim/kernel/result_summary.hpp), per physical core and over all of them, measured while the kernel
// runs. The kernel's clock only moves forward, so the union is the time during which at least one op of the
// engine was running: a count of running ops per (core, engine) and per engine, and the time at which it last
// rose from zero. Two ops that touch (one ends when the next starts) give the same length in either order of
// their events. Summarizing a run then needs no merge of the queues by start time, which cost as much as a
// tenth of a large run's wall time (a heap over the queues, a cache miss per op).
#pragma once

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
  void started(std::uint8_t core, Engine engine, Picoseconds now_ps) {
    open(slots_[per_core(core, engine)], now_ps);
    open(slots_[all(engine)], now_ps);
  }
  void finished(std::uint8_t core, Engine engine, Picoseconds now_ps) {
    close(slots_[per_core(core, engine)], now_ps);
    close(slots_[all(engine)], now_ps);
  }
  // After a run in which every started op finished: the active time of (core, engine), core-major, then of
  // each engine over all cores (`(cores + 1) * kEngineCount` values).
  std::vector<Picoseconds> active_ps() const {
    std::vector<Picoseconds> out;
    out.reserve(slots_.size());
    for (const Slot& s : slots_) out.push_back(s.total_ps);
    return out;
  }

 private:
  struct Slot {
    std::uint32_t running = 0;
    Picoseconds since_ps = 0;  // when `running` last rose from 0
    Picoseconds total_ps = 0;
  };
  static void open(Slot& s, Picoseconds now_ps) {
    if (s.running++ == 0) s.since_ps = now_ps;
  }
  static void close(Slot& s, Picoseconds now_ps) {
    if (--s.running == 0) s.total_ps += now_ps - s.since_ps;
  }
  std::size_t per_core(std::uint8_t core, Engine engine) const {
    return std::size_t{core} * kEngineCount + static_cast<std::size_t>(engine);
  }
  std::size_t all(Engine engine) const { return std::size_t{cores_} * kEngineCount + static_cast<std::size_t>(engine); }

  std::uint32_t cores_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace stasim
