// ScheduleGraph as a Boost.Graph: a bidirectional, vertex-list and edge-list graph whose vertices are op ids
// and whose edges are dependency ids, so Boost.Graph algorithms (write_graphviz, searches) run on it directly.
// The storage is the graph's own compact tables (schedule_graph.hpp): Boost 1.74's adjacency_list takes about
// 300 bytes per op and deep-copies on move, which decode graphs of 50,000 ops and benchmarks of 5 million cannot
// afford. Edges come in insertion order everywhere, as they did from the adjacency_list.
#pragma once

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/property_map/property_map.hpp>

#include <utility>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

struct ScheduleGraphTraversal : boost::bidirectional_graph_tag,
                                boost::vertex_list_graph_tag,
                                boost::edge_list_graph_tag {};

}  // namespace stasim

namespace boost {

template <>
struct graph_traits<stasim::ScheduleGraph> {
  using vertex_descriptor = stasim::OpId;
  using edge_descriptor = stasim::ScheduleGraph::EdgeId;
  using directed_category = directed_tag;
  using edge_parallel_category = allow_parallel_edge_tag;
  using traversal_category = stasim::ScheduleGraphTraversal;
  using out_edge_iterator = const stasim::ScheduleGraph::EdgeId*;
  using in_edge_iterator = const stasim::ScheduleGraph::EdgeId*;
  using vertex_iterator = counting_iterator<stasim::OpId>;
  using edge_iterator = counting_iterator<stasim::ScheduleGraph::EdgeId>;
  using adjacency_iterator = void;
  using vertices_size_type = std::size_t;
  using edges_size_type = std::size_t;
  using degree_size_type = std::size_t;
  static vertex_descriptor null_vertex() { return stasim::kNoOp; }
};

template <>
struct property_map<stasim::ScheduleGraph, vertex_index_t> {
  using type = typed_identity_property_map<stasim::OpId>;
  using const_type = type;
};

}  // namespace boost

namespace stasim {

// Found by argument-dependent lookup, as Boost.Graph algorithms call them.
inline std::pair<const ScheduleGraph::EdgeId*, const ScheduleGraph::EdgeId*> out_edges(OpId v, const ScheduleGraph& g) {
  auto r = g.out_edges(v);
  return {r.begin(), r.end()};
}
inline std::pair<const ScheduleGraph::EdgeId*, const ScheduleGraph::EdgeId*> in_edges(OpId v, const ScheduleGraph& g) {
  auto r = g.in_edges(v);
  return {r.begin(), r.end()};
}
inline OpId source(ScheduleGraph::EdgeId e, const ScheduleGraph& g) { return g.source(e); }
inline OpId target(ScheduleGraph::EdgeId e, const ScheduleGraph& g) { return g.target(e); }
inline std::size_t out_degree(OpId v, const ScheduleGraph& g) { return g.out_degree(v); }
inline std::size_t in_degree(OpId v, const ScheduleGraph& g) { return g.in_degree(v); }
inline std::size_t degree(OpId v, const ScheduleGraph& g) { return g.in_degree(v) + g.out_degree(v); }
inline std::size_t num_vertices(const ScheduleGraph& g) { return g.size(); }
inline std::size_t num_edges(const ScheduleGraph& g) { return g.edge_count(); }
inline std::pair<boost::counting_iterator<OpId>, boost::counting_iterator<OpId>> vertices(const ScheduleGraph& g) {
  return {boost::counting_iterator<OpId>(0), boost::counting_iterator<OpId>(static_cast<OpId>(g.size()))};
}
inline std::pair<boost::counting_iterator<ScheduleGraph::EdgeId>, boost::counting_iterator<ScheduleGraph::EdgeId>>
edges(const ScheduleGraph& g) {
  using It = boost::counting_iterator<ScheduleGraph::EdgeId>;
  return {It(0), It(static_cast<ScheduleGraph::EdgeId>(g.edge_count()))};
}
inline boost::typed_identity_property_map<OpId> get(boost::vertex_index_t, const ScheduleGraph&) { return {}; }

}  // namespace stasim
