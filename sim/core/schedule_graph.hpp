// ScheduleGraph: the dataflow as data. Builders add ops (instructions and DMA transfers) in the program order
// of each engine queue and the dependencies between them; the simulator only reads it. Run state lives beside
// it in vectors indexed by op id (sim_result.hpp), never inside Op.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/units.hpp"

namespace stasim {

// `collective` is the TP all-reduce path between ranks (alpha + bytes x beta), a queue like the engines.
enum class Engine : std::uint8_t { tensor, vector, scalar, gpsimd, dma, collective };
inline constexpr int kEngineCount = 6;
const char* engine_name(Engine e);
// A DMA queue as reports name it: "c<core>.dma<queue>" (the op table's "dma<queue>" with its core).
std::string dma_queue_name(std::uint8_t core, std::uint16_t queue);
bool parse_engine(const std::string& text, Engine& out);

enum class OpKind : std::uint8_t {
  matmul, transpose,                                            // tensor
  activation, activation_reduce, tensor_tensor, tensor_scalar,  // vector / scalar / gpsimd
  tensor_copy, tensor_reduce, memset,
  iota, gather,                                                 // gpsimd
  descriptors,                                                  // gpsimd: software DGE for one DMA
  sendrecv,                                                     // gpsimd: a cross-core exchange on its own DMA
  transfer,                                                     // dma
  all_reduce,                                                   // collective
  fixed,                                                        // any engine, duration given
  // The rest of the NKI ISA that kernels use (sim/core/instruction_set.hpp: engines and sources).
  tensor_tensor_scan, bn_stats, bn_aggr, scalar_tensor_tensor, tensor_scalar_reduce,
  select, affine_select, range_select, reciprocal, max8, find_index8, match_replace8,
  stream_shuffle, exponential, dropout, copy_dynamic,
};
const char* op_kind_name(OpKind k);
bool parse_op_kind(const std::string& text, OpKind& out);

enum class Dtype : std::uint8_t { bf16, fp16, fp32, fp8, mxfp8, mxfp4, int8 };
const char* dtype_name(Dtype d);
bool parse_dtype(const std::string& text, Dtype& out);

// Where a DMA transfer reads or writes: HBM, this core's SBUF or PSUM, or another physical core's SBUF.
enum class Location : std::uint8_t { hbm, sbuf, psum, peer };

// Who writes a DMA's descriptors (nki.isa.dge_mode; docs/hardware-model.md DMA, DGE): `static_` prepared on the
// host before execution (NKI `none`), `hwdge` the core's hardware DGE block driven by the issuing queue, `swdge`
// the GpSimd engine at run time (a `descriptors` op on GpSimd the transfer waits for). Dynamic addresses (an
// expert index read from SBUF) need hwdge or swdge; indirect gathers/scatters need swdge.
enum class DgeMode : std::uint8_t { static_, hwdge, swdge };
const char* dge_mode_name(DgeMode m);
bool parse_dge_mode(const std::string& text, DgeMode& out);

enum class DepKind : std::uint8_t { data, anti, control };

using OpId = std::uint32_t;
inline constexpr OpId kNoOp = 0xFFFFFFFFu;

// One instruction or DMA transfer. Its name lives in the graph (ScheduleGraph::name), not here: a graph of
// millions of ops keeps its names in one block instead of one string per op.
struct Op {
  OpKind kind = OpKind::fixed;
  Engine engine = Engine::tensor;
  Dtype dtype = Dtype::bf16;
  std::uint8_t core = 0;
  Location src = Location::sbuf, dst = Location::sbuf;
  std::uint8_t peer_core = 0;           // the other core of a src/dst `peer` transfer
  DgeMode dge = DgeMode::static_;       // DMA (and its `descriptors` op): who generates the descriptors
  std::uint8_t index_bytes = 4;         // gather: stored index width; nc_n_gather takes uint32, narrower are widened
  std::uint16_t elements_per_index = 1; // gather: contiguous elements fetched per index (local_gather num_elem_per_idx)
  bool new_stationary = true;           // matmul: stationary operand changes, LoadStationary paid
  bool input_in_psum = false;           // elementwise: one input read from PSUM
  bool accumulate = false;              // activation / tensor_scalar / exponential: also into the accumulator
                                        // registers, read out by an extra instruction (reduce_extra_cycles)
  bool dma_transpose = false;           // DMA: a DMA transpose (2- or 4-byte elements; slower than a copy)
  std::uint8_t func = 0;                // activation: the function (sim/core/activation_functions.hpp; 0 = none)
  // matmul PE tiling (nc_matmul tile_position / tile_size): the tile of the array it uses, in PE rows and
  // columns; size 0 = the whole array. Matmuls on disjoint tiles run at once.
  std::uint8_t tile_row = 0, tile_column = 0, tile_rows = 0, tile_columns = 0;
  std::int8_t psum_bank = -1;           // accumulates into this bank (tensor ops)
  std::int8_t releases_psum_bank = -1;  // frees this bank when it ends
  std::uint16_t queue = 0;              // DMA queue on its core (0 for compute engines)
  std::uint16_t phase = 0;              // index into ScheduleGraph::phases()
  std::uint32_t partitions = 128;
  std::uint32_t k = 0, m = 0, n = 0;    // matmul: contraction, stationary free, moving free
  std::uint32_t free = 0;               // elements per partition (elementwise, gather, iota, memset, transpose);
                                        // gather: elements gathered per partition (the output's free size)
  std::uint32_t psum_group = 0xFFFFFFFFu;
  std::uint32_t contiguous_bytes = 0;   // DMA: contiguous run in HBM per descriptor (0 = the partition's bytes); a
                                        // partition of b bytes takes ceil(b / run) descriptors
  std::uint64_t bytes = 0;              // DMA bytes (a `descriptors` op: its transfer's bytes, partitions and runs)
  double cycles = -1;                   // replaces the cost formula (in the engine's clock) when >= 0
  Picoseconds duration_ps = -1;         // replaces everything when >= 0
};

struct Dep {
  DepKind kind = DepKind::data;
};

struct Buffer {
  std::string name;
  Location space = Location::sbuf;      // sbuf or psum
  std::uint8_t core = 0;
  std::uint32_t partitions = 128;
  std::uint64_t bytes_per_partition = 0;
};

// An accumulation group holds its PSUM bank from the start of its first op to the end of its release op.
struct PsumGroup {
  std::string name;
  std::uint8_t core = 0;
  std::int8_t bank = -1;
  OpId first_op = kNoOp;   // in list order
  OpId last_op = kNoOp;    // in list order
  OpId release_op = kNoOp;
};

// One in-order instruction stream: a compute engine of a core, or one DMA queue of a core.
struct Queue {
  std::uint8_t core = 0;
  Engine engine = Engine::tensor;
  std::uint16_t dma_queue = 0;
  std::vector<OpId> ops;   // program order
};

struct BufferUse {
  OpId op;
  std::uint32_t buffer;
};

// The dependencies as one table of edges in insertion order (ids are positions) plus, built on first use after
// a change, the out- and in-edge lists of every op in that same order (a compressed sparse row form: offsets
// per op into one array of edge ids). Out-edges, in-edges and edges() come in the order the builder added them,
// so everything that walks them (the kernel's wake-ups, validation messages, the trace and DOT writers) is
// deterministic. schedule_graph_bgl.hpp makes this a Boost.Graph (bidirectional, vertex- and edge-list graph).
class ScheduleGraph {
 public:
  using EdgeId = std::uint32_t;
  // A contiguous run of edge ids.
  struct EdgeRange {
    const EdgeId* first = nullptr;
    const EdgeId* last = nullptr;
    const EdgeId* begin() const { return first; }
    const EdgeId* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
  };

  ScheduleGraph() = default;
  ScheduleGraph(ScheduleGraph&&) noexcept = default;
  ScheduleGraph& operator=(ScheduleGraph&&) noexcept = default;
  // Copies are explicit (copy()): a decode graph holds tens of thousands of ops.
  ScheduleGraph(const ScheduleGraph&) = delete;
  ScheduleGraph& operator=(const ScheduleGraph&) = delete;
  ScheduleGraph copy() const;

  // Appends an op named `prefix` + `name` at the end of its queue's program order; returns its id.
  OpId add_op(const Op& op, std::string_view name = {}, std::string_view prefix = {});
  void add_dep(OpId from, OpId to, DepKind kind = DepKind::data);
  std::uint32_t add_buffer(Buffer buffer);
  void use_buffer(OpId op, std::uint32_t buffer) { buffer_uses_.push_back({op, buffer}); }
  // Registers the accumulation group `name` for `op` (creating it on first use).
  std::uint32_t join_psum_group(OpId op, const std::string& name);
  // Builders' form: a new group on (core, bank), then ops added to it by index.
  std::uint32_t new_psum_group(std::uint8_t core, std::int8_t bank, std::string name);
  void add_to_psum_group(OpId op, std::uint32_t group);
  void set_release(std::uint32_t group, OpId op) { groups_[group].release_op = op; }
  std::uint16_t phase_id(const std::string& phase);
  // The GpSimd op that generates the descriptors of software-DGE transfer `dma` (already added): same core,
  // phase and shape, named "<dma name>.dge", appended to the core's GpSimd queue. The caller moves the
  // transfer's dependencies onto it and makes the transfer depend on it.
  OpId add_descriptor_op(const Op& dma, std::string_view dma_name);
  // Room for `ops` ops, `deps` dependencies, `name_bytes` bytes of names and `psum_groups` accumulation groups,
  // so a builder that knows its size grows nothing (growing copies what is there and touches fresh memory twice).
  void reserve(std::size_t ops, std::size_t deps, std::size_t name_bytes = 0, std::size_t psum_groups = 0);

  std::size_t size() const { return ops_.size(); }
  const Op& op(OpId id) const { return ops_[id]; }
  Op& mutable_op(OpId id) { return ops_[id]; }
  // The op's name, made when asked for (messages, traces).
  std::string name(OpId id) const { return std::string(name_view(id)); }
  std::string_view name_view(OpId id) const {
    std::uint32_t begin = id == 0 ? 0 : name_end_[id - 1];
    return std::string_view(names_).substr(begin, name_end_[id] - begin);
  }

  std::size_t edge_count() const { return edge_to_.size(); }
  OpId source(EdgeId e) const { return edge_from_[e]; }
  OpId target(EdgeId e) const { return edge_to_[e]; }
  DepKind dep_kind(EdgeId e) const { return edge_kind_[e]; }
  EdgeRange out_edges(OpId v) const { return range(lists(adjacency_.out, edge_from_), v); }
  EdgeRange in_edges(OpId v) const { return range(lists(adjacency_.in, edge_to_), v); }
  std::size_t out_degree(OpId v) const { return out_edges(v).size(); }
  std::size_t in_degree(OpId v) const { return in_edges(v).size(); }
  // Every op's in-degree into `out` (resized to size()), counted from the edge table: for a caller that needs
  // only the counts, without building the in-edge lists.
  void in_degrees(std::vector<std::uint32_t>& out) const;

  const std::vector<Queue>& queues() const { return queues_; }
  std::uint32_t queue_of(OpId id) const { return queue_of_[id]; }
  const std::vector<Buffer>& buffers() const { return buffers_; }
  const std::vector<BufferUse>& buffer_uses() const { return buffer_uses_; }
  const std::vector<PsumGroup>& psum_groups() const { return groups_; }
  std::vector<PsumGroup>& mutable_psum_groups() { return groups_; }
  const std::vector<std::string>& phases() const { return phases_; }

 private:
  struct Lists {
    std::vector<std::uint32_t> offset;  // per op + 1: its edges are ids[offset[v] .. offset[v + 1])
    std::vector<EdgeId> ids;
    bool valid = false;
  };
  // Each direction is built on its first use: the kernel walks only out-edges, so a graph that is simulated
  // and never walked backwards (the bench's) never holds its in-edge lists.
  struct Adjacency {
    Lists out, in;
  };
  static EdgeRange range(const Lists& l, OpId v) {
    return {l.ids.data() + l.offset[v], l.ids.data() + l.offset[v + 1]};
  }
  // `l`, built if needed from the edges' endpoints `key` (edge_from_ for out-edges, edge_to_ for in-edges).
  const Lists& lists(Lists& l, const std::vector<OpId>& key) const {
    if (!l.valid) build_lists(l, key);
    return l;
  }
  void build_lists(Lists& l, const std::vector<OpId>& key) const;
  std::uint32_t queue_index(std::uint8_t core, Engine engine, std::uint16_t dma_queue);

  std::vector<Op> ops_;
  std::string names_;                     // every name, back to back
  std::vector<std::uint32_t> name_end_;   // per op: end of its name in names_ (at most 4 GiB of names)
  std::vector<OpId> edge_from_, edge_to_;
  std::vector<DepKind> edge_kind_;
  mutable Adjacency adjacency_;           // rebuilt after edges or ops are added
  std::vector<Queue> queues_;
  std::vector<std::uint32_t> queue_of_;
  // Per (core, engine), core-major, then per DMA queue number (0 for compute engines): the queue's index + 1,
  // 0 for a queue not made yet.
  std::vector<std::vector<std::uint32_t>> queue_slot_;
  std::vector<Buffer> buffers_;
  std::vector<BufferUse> buffer_uses_;
  std::vector<PsumGroup> groups_;
  std::unordered_map<std::string, std::uint32_t> open_group_;  // core/name -> newest group of that name
  std::vector<std::string> phases_{""};
};

}  // namespace stasim
