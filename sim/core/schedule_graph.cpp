#include "sim/core/schedule_graph.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/core/memory_budget.hpp"

namespace stasim {
namespace {

// Name ends are kept as 32-bit offsets (4 bytes per op instead of 8): a graph of kMaxGraphOps ops stays far
// below this with names of a few dozen characters.
constexpr std::uint64_t kMaxNameBytes = 0xFFFFFFFFu;

const char* const kEngineNames[] = {"tensor", "vector", "scalar", "gpsimd", "dma", "collective"};
const char* const kOpKindNames[] = {"matmul",        "transpose",   "activation",    "activation_reduce",
                                    "tensor_tensor", "tensor_scalar", "tensor_copy", "tensor_reduce",
                                    "memset",        "iota",        "gather",        "descriptors",
                                    "sendrecv",      "transfer",      "all_reduce",  "fixed",
                                    "tensor_tensor_scan", "bn_stats", "bn_aggr", "scalar_tensor_tensor",
                                    "tensor_scalar_reduce", "select", "affine_select", "range_select",
                                    "reciprocal", "max8", "find_index8", "match_replace8", "stream_shuffle",
                                    "exponential", "dropout", "copy_dynamic"};
const char* const kDtypeNames[] = {"bf16", "fp16", "fp32", "fp8", "mxfp8", "mxfp4", "int8"};
const char* const kDgeModeNames[] = {"static", "hwdge", "swdge"};

template <class E, size_t N>
bool parse_enum(const std::string& text, const char* const (&names)[N], E& out) {
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* engine_name(Engine e) { return kEngineNames[static_cast<int>(e)]; }
std::string dma_queue_name(std::uint8_t core, std::uint16_t queue) {
  return "c" + std::to_string(core) + ".dma" + std::to_string(queue);
}
bool parse_engine(const std::string& text, Engine& out) { return parse_enum(text, kEngineNames, out); }
const char* op_kind_name(OpKind k) { return kOpKindNames[static_cast<int>(k)]; }
bool parse_op_kind(const std::string& text, OpKind& out) { return parse_enum(text, kOpKindNames, out); }
const char* dtype_name(Dtype d) { return kDtypeNames[static_cast<int>(d)]; }
bool parse_dtype(const std::string& text, Dtype& out) { return parse_enum(text, kDtypeNames, out); }
const char* dge_mode_name(DgeMode m) { return kDgeModeNames[static_cast<int>(m)]; }
bool parse_dge_mode(const std::string& text, DgeMode& out) { return parse_enum(text, kDgeModeNames, out); }

std::uint32_t ScheduleGraph::queue_index(std::uint8_t core, Engine engine, std::uint16_t dma_queue) {
  // Two array lookups: builders add every op through here, a million times for a large graph.
  std::size_t slot = std::size_t{core} * kEngineCount + static_cast<std::size_t>(engine);
  if (slot >= queue_slot_.size()) queue_slot_.resize(slot + 1);
  std::vector<std::uint32_t>& by_dma_queue = queue_slot_[slot];
  if (dma_queue >= by_dma_queue.size()) by_dma_queue.resize(std::size_t{dma_queue} + 1, 0);
  if (by_dma_queue[dma_queue] == 0) {
    Queue q;
    q.core = core;
    q.engine = engine;
    q.dma_queue = dma_queue;
    queues_.push_back(std::move(q));
    by_dma_queue[dma_queue] = static_cast<std::uint32_t>(queues_.size());
  }
  return by_dma_queue[dma_queue] - 1;
}

OpId ScheduleGraph::add_op(const Op& op, std::string_view name, std::string_view prefix) {
  // Builders stop here rather than exhausting memory on a configuration that passed every range check.
  if (ops_.size() >= kMaxGraphOps)
    throw InputError("the schedule graph would have more than " + std::to_string(kMaxGraphOps) +
                     " ops (about 4 GiB), the simulator's limit (README \"Robustness\"): simulate fewer layers "
                     "(--layers), a smaller batch or fewer experts");
  std::uint32_t q = queue_index(op.core, op.engine, op.engine == Engine::dma ? op.queue : 0);
  OpId id = static_cast<OpId>(ops_.size());
  ops_.push_back(op);
  if (names_.size() + prefix.size() + name.size() > kMaxNameBytes)
    throw InputError("the schedule graph's op names would take more than 4 GiB, the simulator's limit (README "
                     "\"Robustness\"): simulate fewer layers (--layers), a smaller batch or fewer experts");
  if (!prefix.empty()) names_.append(prefix);
  names_.append(name);
  name_end_.push_back(static_cast<std::uint32_t>(names_.size()));
  queues_[q].ops.push_back(id);
  queue_of_.push_back(q);
  adjacency_.out.valid = adjacency_.in.valid = false;
  return id;
}

void ScheduleGraph::add_dep(OpId from, OpId to, DepKind kind) {
  edge_from_.push_back(from);
  edge_to_.push_back(to);
  edge_kind_.push_back(kind);
  adjacency_.out.valid = adjacency_.in.valid = false;
}

void ScheduleGraph::build_lists(Lists& l, const std::vector<OpId>& key) const {
  // Counting sort of the edge ids by `key`, stable, so each list keeps insertion order: count each op's edges,
  // sum them up to each op's end, then place the edges from the last to the first, each just before the end of
  // its op's list, which moves every end back to its op's start. No second per-op array; when the keys come
  // sorted (builders add an op's in-edges right after the op) every pass runs front to back or back to front.
  const std::size_t n = ops_.size();
  const std::size_t m = key.size();
  l.offset.assign(n + 1, 0);
  std::uint32_t* offset = l.offset.data();
  for (std::size_t e = 0; e < m; ++e) ++offset[key[e]];
  for (std::size_t v = 1; v < n; ++v) offset[v] += offset[v - 1];
  offset[n] = static_cast<std::uint32_t>(m);
  l.ids.resize(m);
  EdgeId* ids = l.ids.data();
  for (std::size_t e = m; e-- > 0;) ids[--offset[key[e]]] = static_cast<EdgeId>(e);
  l.valid = true;
}

void ScheduleGraph::in_degrees(std::vector<std::uint32_t>& out) const {
  out.assign(ops_.size(), 0);
  for (OpId to : edge_to_) ++out[to];
}

ScheduleGraph ScheduleGraph::copy() const {
  ScheduleGraph g;
  g.ops_ = ops_;
  g.names_ = names_;
  g.name_end_ = name_end_;
  g.edge_from_ = edge_from_;
  g.edge_to_ = edge_to_;
  g.edge_kind_ = edge_kind_;
  g.queues_ = queues_;
  g.queue_of_ = queue_of_;
  g.queue_slot_ = queue_slot_;
  g.buffers_ = buffers_;
  g.buffer_uses_ = buffer_uses_;
  g.groups_ = groups_;
  g.open_group_ = open_group_;
  g.phases_ = phases_;
  return g;
}

std::uint32_t ScheduleGraph::add_buffer(Buffer buffer) {
  buffers_.push_back(std::move(buffer));
  return static_cast<std::uint32_t>(buffers_.size() - 1);
}

std::uint32_t ScheduleGraph::join_psum_group(OpId op, const std::string& name) {
  const Op& o = ops_[op];
  std::string key = std::to_string(o.core) + "/" + name;
  auto it = open_group_.find(key);
  // A name reused after its group was released starts a new group.
  if (it == open_group_.end() || groups_[it->second].release_op != kNoOp) {
    PsumGroup g;
    g.name = name;
    g.core = o.core;
    g.bank = o.psum_bank;
    g.first_op = op;
    groups_.push_back(g);
    std::uint32_t index = static_cast<std::uint32_t>(groups_.size() - 1);
    if (it == open_group_.end()) it = open_group_.emplace(key, index).first;
    else it->second = index;
  }
  std::uint32_t group = it->second;
  groups_[group].last_op = op;
  ops_[op].psum_group = group;
  return group;
}

std::uint32_t ScheduleGraph::new_psum_group(std::uint8_t core, std::int8_t bank, std::string name) {
  PsumGroup g;
  g.name = std::move(name);
  g.core = core;
  g.bank = bank;
  groups_.push_back(std::move(g));
  return static_cast<std::uint32_t>(groups_.size() - 1);
}

void ScheduleGraph::add_to_psum_group(OpId op, std::uint32_t group) {
  PsumGroup& g = groups_[group];
  Op& o = ops_[op];
  o.psum_group = group;
  o.psum_bank = g.bank;
  if (g.first_op == kNoOp) g.first_op = op;
  g.last_op = op;
}

std::uint16_t ScheduleGraph::phase_id(const std::string& phase) {
  auto it = std::find(phases_.begin(), phases_.end(), phase);
  if (it != phases_.end()) return static_cast<std::uint16_t>(it - phases_.begin());
  phases_.push_back(phase);
  return static_cast<std::uint16_t>(phases_.size() - 1);
}

OpId ScheduleGraph::add_descriptor_op(const Op& dma, std::string_view dma_name) {
  Op gen;
  gen.kind = OpKind::descriptors;
  gen.engine = Engine::gpsimd;
  gen.core = dma.core;
  gen.phase = dma.phase;
  gen.dge = DgeMode::swdge;
  gen.src = dma.src;
  gen.dst = dma.dst;
  gen.peer_core = dma.peer_core;
  gen.partitions = dma.partitions;
  gen.bytes = dma.bytes;
  gen.contiguous_bytes = dma.contiguous_bytes;
  return add_op(gen, ".dge", dma_name);
}

void ScheduleGraph::reserve(std::size_t ops, std::size_t deps, std::size_t name_bytes, std::size_t psum_groups) {
  ops_.reserve(ops);
  groups_.reserve(psum_groups);
  names_.reserve(name_bytes);
  name_end_.reserve(ops);
  queue_of_.reserve(ops);
  edge_from_.reserve(deps);
  edge_to_.reserve(deps);
  edge_kind_.reserve(deps);
}

}  // namespace stasim
