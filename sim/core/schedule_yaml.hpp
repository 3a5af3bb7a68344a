// Hand-written schedules (configs/schedules/*.yaml): a list of ops whose order is the program order of each
// engine queue, plus optional SBUF/PSUM buffers. load_schedule() builds the ScheduleGraph and an OpLocator
// that names each op by file and line, so every later error (validation, cycles) points into the file.
#pragma once

#include <string>
#include <vector>

#include "sim/core/graph_validation.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/yaml_node.hpp"

namespace stasim {

struct LoadedSchedule {
  ScheduleGraph graph;
  std::vector<int> op_lines;      // 1-based line of each op's entry
  std::vector<int> buffer_lines;  // 1-based line of each buffer's entry
  std::string file;
  OpLocator locator() const;
  BufferLocator buffer_locator() const;
};

LoadedSchedule load_schedule(const std::string& path);
LoadedSchedule read_schedule(const YamlNode& root, const std::string& file);

}  // namespace stasim
