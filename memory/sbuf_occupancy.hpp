// SBUF occupancy over time from buffer lifetimes: a buffer lives from the start of the first op that uses it
// to the end of the last. Reports the peak (bytes per partition, the binding limit since buffers start at
// partition 0, and total bytes) and throws InputError naming the buffers live at the peak when it overflows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct SbufPeak {
  std::uint64_t bytes_per_partition = 0;   // worst core
  std::uint64_t bytes = 0;                 // worst core, summed over partitions
};

// `buffer_where` ("file:line: buffer 'w'" for buffer i) places the overflow in a hand-written schedule: the
// message starts at the buffer whose allocation passed the capacity and names where each live one is declared.
SbufPeak sbuf_peak(const ScheduleGraph& graph, const HardwareConfig& hw, const std::vector<OpTiming>& timings,
                   const std::function<std::string(std::uint32_t)>& buffer_where = {});

}  // namespace stasim
