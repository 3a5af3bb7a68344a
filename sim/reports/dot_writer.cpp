#include "sim/reports/dot_writer.hpp"

#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

#include "sim/core/schedule_graph_bgl.hpp"

#include <set>
#include <utility>
#include <vector>

namespace stasim {
namespace {

// A Graphviz quoted string: double quotes escaped; the label's "\n" line breaks are kept as escapes.
std::string dot_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

class OpWriter {
 public:
  OpWriter(const ScheduleGraph& graph, const SimResult& result, const std::vector<char>& critical)
      : graph_(graph), result_(result), critical_(critical) {}
  template <class Vertex>
  void operator()(std::ostream& out, const Vertex& v) const {
    const Op& op = graph_.op(static_cast<OpId>(v));
    const OpTiming& t = result_.ops[v];
    std::string engine = op.engine == Engine::dma ? "dma q" + std::to_string(op.queue) : engine_name(op.engine);
    const std::string interval = fmt::format("{:.3f}-{:.3f} ns", ns_from_ps(t.start_ps), ns_from_ps(t.end_ps));
    std::string label = graph_.name(static_cast<OpId>(v)) + "\\n" + engine + " core " + std::to_string(op.core) + "\\n" + interval;
    out << "[label=" << dot_quoted(label);
    if (critical_[v]) out << ", color=red, style=filled, fillcolor=\"#ffd0d0\", penwidth=2";
    out << "]";
  }

 private:
  const ScheduleGraph& graph_;
  const SimResult& result_;
  const std::vector<char>& critical_;
};

class DepWriter {
 public:
  DepWriter(const ScheduleGraph& graph, const std::set<std::pair<OpId, OpId>>& path_edges)
      : graph_(graph), path_edges_(path_edges) {}
  template <class Edge>
  void operator()(std::ostream& out, const Edge& e) const {
    OpId from = graph_.source(e), to = graph_.target(e);
    std::vector<std::string> attrs;
    if (graph_.dep_kind(e) == DepKind::anti) attrs.push_back("style=dashed");
    if (graph_.dep_kind(e) == DepKind::control) attrs.push_back("style=dotted");
    if (path_edges_.count({from, to})) {
      attrs.push_back("color=red");
      attrs.push_back("penwidth=3");
    }
    if (attrs.empty()) return;
    out << "[";
    for (std::size_t i = 0; i < attrs.size(); ++i) out << (i ? ", " : "") << attrs[i];
    out << "]";
  }

 private:
  const ScheduleGraph& graph_;
  const std::set<std::pair<OpId, OpId>>& path_edges_;
};

}  // namespace

void write_dot(std::ostream& out, const ScheduleGraph& graph, const SimResult& result) {
  std::vector<char> critical(graph.size(), 0);
  for (OpId v : result.critical_path.ops) critical[v] = 1;
  std::set<std::pair<OpId, OpId>> path_edges;
  const auto& path = result.critical_path.ops;
  for (std::size_t i = 1; i < path.size(); ++i) path_edges.insert({path[i - 1], path[i]});
  boost::write_graphviz(out, graph, OpWriter(graph, result, critical), DepWriter(graph, path_edges));
}

}  // namespace stasim
