#include "dataflows/dataflow_options.hpp"

namespace stasim {

std::string DownSchedule::name() const {
  return std::string(stationary == Stationary::weight ? "weight" : "activation") + "-" +
         (accumulate == Accumulate::sbuf ? "sbuf" : "psum");
}

bool parse_down_schedule(const std::string& text, DownSchedule& out) {
  for (Stationary s : {Stationary::weight, Stationary::activation})
    for (Accumulate a : {Accumulate::sbuf, Accumulate::psum}) {
      DownSchedule d{s, a};
      if (d.name() == text) {
        out = d;
        return true;
      }
    }
  return false;
}

}  // namespace stasim
