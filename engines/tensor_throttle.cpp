#include "engines/tensor_throttle.hpp"

#include <algorithm>

namespace stasim {

void TensorThrottle::reset(const TensorEngineConfig& tensor) {
  start_fraction_ = std::min(1.0, std::max(tensor.throttle_start_fraction, 1e-3));
  threshold_ = tensor.throttle_threshold;
  window_ps_ = ps_from_ns(tensor.throttle_window_ns);
  ramp_ps_ = ps_from_ns(tensor.throttle_ramp_ns);
  ramp_start_ps_ = 0;
  recent_.clear();
}

double TensorThrottle::rate_at(Picoseconds now_ps) {
  if (!enabled()) return 1;
  const Picoseconds from = now_ps - window_ps_;
  while (!recent_.empty() && recent_.front().end_ps <= from) recent_.pop_front();
  Picoseconds busy = 0;
  for (const Interval& i : recent_) busy += std::min(i.end_ps, now_ps) - std::max(i.start_ps, from);
  // Under the threshold over the window (or at the start of a run): the limit (re-)engages and the ramp waits.
  if (window_ps_ <= 0 || static_cast<double>(busy) < threshold_ * static_cast<double>(window_ps_) || recent_.empty())
    ramp_start_ps_ = now_ps;
  if (ramp_ps_ <= 0) return now_ps > ramp_start_ps_ ? 1.0 : start_fraction_;
  const double ramp = std::min(1.0, static_cast<double>(now_ps - ramp_start_ps_) / static_cast<double>(ramp_ps_));
  return start_fraction_ + (1 - start_fraction_) * ramp;
}

void TensorThrottle::busy(Picoseconds start_ps, Picoseconds end_ps) {
  if (enabled() && end_ps > start_ps) recent_.push_back({start_ps, end_ps});
}

}  // namespace stasim
