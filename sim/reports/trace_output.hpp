// The files behind --trace and --dot of run, compare and schedule. compare writes one file per dataflow, the
// dataflow's name inserted before the extension (trace.json -> trace.dense.json, trace.cardan.json).
#pragma once

#include <string>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

// "out/trace.json" + "dense" -> "out/trace.dense.json"; no extension: "out/trace" -> "out/trace.dense".
std::string path_with_tag(const std::string& path, const std::string& tag);

// Both throw InputError naming the path and the OS error when the file cannot be written.
void write_trace_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result,
                      const HardwareConfig& hw, const std::string& title);
void write_dot_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result);

}  // namespace stasim
