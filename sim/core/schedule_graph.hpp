// ScheduleGraph: the dataflow as data. Builders add ops (instructions and DMA transfers) in the program order
// of each engine queue and the dependencies between them; the simulator only reads it. Run state lives beside
// it in vectors indexed by op id (sim_result.hpp), never inside Op.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/units.hpp"

namespace stasim {

// `collective` is the TP all-reduce path between ranks (alpha + bytes x beta), a queue like the engines.
enum class Engine : std::uint8_t { tensor, vector, scalar, gpsimd, dma, collective };
inline constexpr int kEngineCount = 6;
const char* engine_name(Engine e);
bool parse_engine(const std::string& text, Engine& out);

enum class OpKind : std::uint8_t {
  matmul, transpose,                                            // tensor
  activation, activation_reduce, tensor_tensor, tensor_scalar,  // vector / scalar / gpsimd
  tensor_copy, tensor_reduce, memset,
  iota, gather,                                                 // gpsimd
  descriptors,                                                  // gpsimd: software DGE for one DMA
  transfer,                                                     // dma
  all_reduce,                                                   // collective
  fixed,                                                        // any engine, duration given
};
const char* op_kind_name(OpKind k);
bool parse_op_kind(const std::string& text, OpKind& out);

enum class Dtype : std::uint8_t { bf16, fp16, fp32, fp8, mxfp8, mxfp4, int8 };
const char* dtype_name(Dtype d);
bool parse_dtype(const std::string& text, Dtype& out);

// Where a DMA transfer reads or writes: HBM, this core's SBUF or PSUM, or another physical core's SBUF.
enum class Location : std::uint8_t { hbm, sbuf, psum, peer };

// Who writes a DMA's descriptors (nki.isa.dge_mode; docs/hardware-facts.md §4 DMA, A7): `static_` prepared on the
// host before execution (NKI `none`), `hwdge` the core's hardware DGE block driven by the issuing queue, `swdge`
// the GpSimd engine at run time (a `descriptors` op on GpSimd the transfer waits for). Dynamic addresses (an
// expert index read from SBUF) need hwdge or swdge; indirect gathers/scatters need swdge.
enum class DgeMode : std::uint8_t { static_, hwdge, swdge };
const char* dge_mode_name(DgeMode m);
bool parse_dge_mode(const std::string& text, DgeMode& out);

enum class DepKind : std::uint8_t { data, anti, control };

using OpId = std::uint32_t;
inline constexpr OpId kNoOp = 0xFFFFFFFFu;

struct Op {
  std::string name;
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

class ScheduleGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Op, Dep, boost::no_property,
                                      boost::vecS>;

  // Appends an op at the end of its queue's program order; returns its id.
  OpId add_op(Op op);
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
  OpId add_descriptor_op(const Op& dma);
  void reserve(std::size_t ops, std::size_t deps);

  std::size_t size() const { return boost::num_vertices(graph_); }
  const Op& op(OpId id) const { return graph_[id]; }
  Op& mutable_op(OpId id) { return graph_[id]; }
  const Graph& graph() const { return graph_; }
  const std::vector<Queue>& queues() const { return queues_; }
  std::uint32_t queue_of(OpId id) const { return queue_of_[id]; }
  const std::vector<Buffer>& buffers() const { return buffers_; }
  const std::vector<BufferUse>& buffer_uses() const { return buffer_uses_; }
  const std::vector<PsumGroup>& psum_groups() const { return groups_; }
  std::vector<PsumGroup>& mutable_psum_groups() { return groups_; }
  const std::vector<std::string>& phases() const { return phases_; }

 private:
  std::uint32_t queue_index(std::uint8_t core, Engine engine, std::uint16_t dma_queue);

  Graph graph_;
  std::vector<Queue> queues_;
  std::vector<std::uint32_t> queue_of_;
  std::unordered_map<std::uint64_t, std::uint32_t> queue_lookup_;  // (core, engine, dma queue) -> queue
  // A small cache in front of it; an empty entry holds a key no queue has.
  std::array<std::pair<std::uint64_t, std::uint32_t>, 8> recent_queues_ = [] {
    std::array<std::pair<std::uint64_t, std::uint32_t>, 8> a{};
    a.fill({~std::uint64_t{0}, 0});
    return a;
  }();
  std::size_t recent_next_ = 0;
  std::vector<Buffer> buffers_;
  std::vector<BufferUse> buffer_uses_;
  std::vector<PsumGroup> groups_;
  std::unordered_map<std::string, std::uint32_t> open_group_;  // core/name -> newest group of that name
  std::vector<std::string> phases_{""};
};

}  // namespace stasim
