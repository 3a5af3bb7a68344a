// The files behind --trace, --dot and --ops of run, compare and schedule. compare writes one file per dataflow,
// the dataflow's name inserted before the extension (trace.json -> trace.dense.json, trace.cardan.json; a
// gzip name keeps its .json.gz: trace.json.gz -> trace.dense.json.gz).
#pragma once

#include <string>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"
#include "sim/reports/trace_writer.hpp"

namespace stasim {

// "out/trace.json" + "dense" -> "out/trace.dense.json"; no extension: "out/trace" -> "out/trace.dense".
std::string path_with_tag(const std::string& path, const std::string& tag);

// "A:B" (layers A to B inclusive) or "A" into options.first_layer/last_layer; InputError naming --trace-layers
// and the text unless 0 <= A <= B < layers.
void parse_trace_layers(const std::string& text, int layers, TraceOptions& options);

// All throw InputError naming the path and the OS error when the file cannot be written. A trace whose name ends
// in ".gz" is written gzip compressed (ui.perfetto.dev and chrome://tracing open it as it is).
void write_trace_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result,
                      const HardwareConfig& hw, const TraceOptions& options);
void write_dot_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result);
void write_ops_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result);

// gzip-compressed bytes of `text` (zlib, gzip framing, no file name or time in the header: the same text gives
// the same bytes).
std::string gzip_bytes(const std::string& text);

}  // namespace stasim
