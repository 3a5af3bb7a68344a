// Checks a ScheduleGraph against the hardware before simulation: every op names an existing engine, core and
// DMA queue with sizes inside the tile limits; PSUM groups are released; buffers fit; and the dependencies
// together with each queue's program order form no cycle (a cycle is named op by op). Throws InputError with
// every problem found.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"

namespace stasim {

// Names an op in messages, e.g. "schedule.yaml:7: op 'mm'"; the default is "op 'mm'".
using OpLocator = std::function<std::string(OpId)>;
// Names a buffer (by index) the same way; the default is "buffer 'w'".
using BufferLocator = std::function<std::string(std::uint32_t)>;

// Problems caused by a hardware limit end with " (hardware key core.psum.banks)": the key is what a user changes.
constexpr const char* kHardwareKeyTag = "hardware key ";

void validate_graph(const ScheduleGraph& graph, const HardwareConfig& hw, const OpLocator& where = {},
                    const BufferLocator& buffer_where = {});

// Program order plus dependencies in an order every op can start in; empty when they contain a cycle.
std::vector<OpId> execution_order(const ScheduleGraph& graph);

}  // namespace stasim
