#include "sim/reports/trace_output.hpp"

#include <filesystem>
#include <fstream>

#include "sim/reports/dot_writer.hpp"
#include "sim/core/input_error.hpp"
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
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the trace file");
  TraceOptions options;
  options.title = title;
  out << trace_json(graph, result, hw, options).dump() << '\n';
}

void write_dot_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the graph file");
  write_dot(out, graph, result);
}

}  // namespace stasim
