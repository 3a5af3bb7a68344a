#include "sim/reports/trace_output.hpp"

#include <filesystem>
#include <sstream>

#include "sim/reports/dot_writer.hpp"
#include "sim/core/output_file.hpp"
#include "sim/reports/trace_writer.hpp"

namespace stasim {

std::string path_with_tag(const std::string& path, const std::string& tag) {
  std::filesystem::path p(path);
  std::string ext = p.extension().string();
  p.replace_extension();
  return p.string() + "." + tag + ext;
}

void write_trace_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result,
                      const HardwareConfig& hw, const std::string& title) {
  TraceOptions options;
  options.title = title;
  write_output_file(path, trace_json(graph, result, hw, options).dump() + "\n", "the trace file");
}

void write_dot_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result) {
  std::ostringstream text;
  write_dot(text, graph, result);
  write_output_file(path, text.str(), "the graph file");
}

}  // namespace stasim
