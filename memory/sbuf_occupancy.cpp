#include "memory/sbuf_occupancy.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/run/buffer_lifetimes.hpp"

namespace stasim {

SbufPeak sbuf_peak(const ScheduleGraph& graph, const HardwareConfig& hw, const std::vector<OpTiming>& timings,
                   const std::function<std::string(std::uint32_t)>& buffer_where) {
  const auto& buffers = graph.buffers();
  const std::vector<BufferLifetime> life = buffer_lifetimes(graph, timings);
  struct Event {
    Picoseconds at;
    bool starts;
    std::uint32_t buffer;
  };
  SbufPeak peak;
  for (std::uint32_t core = 0; core < hw.lnc; ++core) {
    std::vector<Event> events;
    for (std::uint32_t b = 0; b < buffers.size(); ++b) {
      if (buffers[b].space != Location::sbuf || buffers[b].core != core || !life[b].used()) continue;
      events.push_back({life[b].first_ps, true, b});
      events.push_back({life[b].last_ps, false, b});
    }
    // A buffer freed at t can be reused by one allocated at t: ends sort before starts.
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return a.at != b.at ? a.at < b.at : (a.starts != b.starts ? !a.starts : a.buffer < b.buffer);
    });
    std::uint64_t per_partition = 0, total = 0, best = 0;
    Picoseconds best_at = 0;
    std::uint32_t best_buffer = 0;  // the allocation that reached the peak
    for (const Event& e : events) {
      const Buffer& b = buffers[e.buffer];
      if (e.starts) {
        per_partition += b.bytes_per_partition;
        total += b.bytes_per_partition * b.partitions;
        if (per_partition > best) {
          best = per_partition;
          best_at = e.at;
          best_buffer = e.buffer;
        }
        peak.bytes = std::max(peak.bytes, total);
      } else {
        per_partition -= b.bytes_per_partition;
        total -= b.bytes_per_partition * b.partitions;
      }
    }
    peak.bytes_per_partition = std::max(peak.bytes_per_partition, best);
    if (best > hw.sbuf.usable_bytes_per_partition()) {
      std::string live;
      for (std::uint32_t b = 0; b < buffers.size(); ++b)
        if (buffers[b].space == Location::sbuf && buffers[b].core == core && life[b].used() &&
            life[b].first_ps <= best_at && life[b].last_ps > best_at)
          live += (live.empty() ? "" : ", ") + (buffer_where ? buffer_where(b) : buffers[b].name) + " (" +
                  std::to_string(buffers[b].bytes_per_partition) + ")";
      throw InputError((buffer_where ? buffer_where(best_buffer) + ": " : std::string()) + "SBUF overflow on core " + std::to_string(core) + " at " + std::to_string(ns_from_ps(best_at)) +
                       " ns: " + std::to_string(best) + " bytes per partition live, " +
                       std::to_string(hw.sbuf.usable_bytes_per_partition()) + " usable; live buffers: " + live);
    }
  }
  return peak;
}

}  // namespace stasim
