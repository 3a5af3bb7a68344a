#include "sim/reports/trace_output.hpp"

#include <zlib.h>

#include <filesystem>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/reports/dot_writer.hpp"
#include "sim/reports/op_table.hpp"
#include "sim/reports/result_report.hpp"

namespace stasim {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string path_with_tag(const std::string& path, const std::string& tag) {
  if (ends_with(path, ".gz")) return path_with_tag(path.substr(0, path.size() - 3), tag) + ".gz";
  std::filesystem::path p(path);
  std::string ext = p.extension().string();
  p.replace_extension();
  return p.string() + "." + tag + ext;
}

void parse_trace_layers(const std::string& text, int layers, TraceOptions& options) {
  const std::string expected = "--trace-layers '" + text + "': expected A:B (layers A to B, 0 <= A <= B < " +
                               std::to_string(layers) + ", the step's layers) or one layer A";
  std::size_t colon = text.find(':');
  long first = 0, last = 0;
  try {
    std::size_t used = 0;
    const std::string a = text.substr(0, colon), b = colon == std::string::npos ? a : text.substr(colon + 1);
    first = std::stol(a, &used);
    if (used != a.size()) throw std::invalid_argument(a);
    last = std::stol(b, &used);
    if (used != b.size()) throw std::invalid_argument(b);
  } catch (const std::exception&) {
    throw InputError(expected);
  }
  if (first < 0 || last < first || last >= layers) throw InputError(expected);
  options.first_layer = static_cast<int>(first);
  options.last_layer = static_cast<int>(last);
}

std::string gzip_bytes(const std::string& text) {
  if (text.size() > 0xFFFFFFFFu) throw InputError("a trace over 4 GiB cannot be gzipped here: trace fewer layers");
  z_stream z{};
  // windowBits 15 + 16: gzip framing; deflateInit2 writes no name and a zero time, so the output is reproducible.
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw SimulationError("zlib: deflateInit2 failed");
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw SimulationError("zlib: deflate did not finish");
  return out;
}

void write_trace_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result,
                      const HardwareConfig& hw, const TraceOptions& options) {
  std::string text = trace_json(graph, result, hw, options).dump() + '\n';
  write_output_file(path, ends_with(path, ".gz") ? gzip_bytes(text) : text, "the trace file");
}

void write_dot_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result) {
  std::ostringstream text;
  write_dot(text, graph, result);
  write_output_file(path, text.str(), "the graph file");
}

void write_ops_file(const std::string& path, const ScheduleGraph& graph, const SimResult& result) {
  write_output_file(path, op_table_csv(graph, result), "the op table file");
}

}  // namespace stasim
