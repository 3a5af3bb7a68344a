// TensorE dI/dt throttling as a state machine driven by the engine's own idle gaps (docs/hardware-model.md,
// tensor engine): from low load the engine runs at `throttle_start_fraction` of its rate, ramps to full over
// `throttle_ramp_ns` of sustained load, and the limit re-engages whenever its busy share over the last
// `throttle_window_ns` is below `throttle_threshold` (the Neuron profiler glossary describes the behaviour:
// ~50 % from low load, a ~3 µs ramp, re-engaged under 50 % utilisation in any ~3 µs window). An instruction
// runs at the rate of its start (the ramp is not integrated inside one instruction). Decode keeps TensorE
// mostly idle, so most matmuls there pay the start fraction; long bursts (the LM head, prefill-like shapes)
// reach full rate. A start fraction of 1 turns it off.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/core/hardware_config.hpp"
#include "sim/core/units.hpp"

namespace stasim {

class TensorThrottle {
 public:
  void reset(const TensorEngineConfig& tensor);
  bool enabled() const { return start_fraction_ < 1; }
  // The share of the full rate an instruction starting at `now_ps` runs at (start fraction .. 1).
  double rate_at(Picoseconds now_ps);
  // The engine was busy over [start_ps, end_ps) (instructions are recorded in start order).
  void busy(Picoseconds start_ps, Picoseconds end_ps);

 private:
  struct Interval {
    Picoseconds start_ps, end_ps;
  };
  double start_fraction_ = 1, threshold_ = 0.5;
  Picoseconds window_ps_ = 0, ramp_ps_ = 0;
  Picoseconds ramp_start_ps_ = 0;
  std::deque<Interval> recent_;  // busy intervals that may still overlap the window
};

}  // namespace stasim
