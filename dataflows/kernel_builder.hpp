// KernelBuilder: emits ops into a ScheduleGraph the way a kernel issues them. Each op gets a label
// ("L3.c0.e5.gate.mm[2]": layer, core, block, index), a phase tag, its place at the end of its engine queue, and
// its dependencies (kNoOp entries are skipped). It hands out DMA queues round-robin per core, PSUM banks
// round-robin per core for accumulation groups, and declares SBUF buffers so capacity is checked over time.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"

namespace stasim {

using Deps = std::vector<OpId>;

// An open PSUM accumulation group: matmuls join it, one drain op releases its bank.
struct Accumulator {
  std::uint32_t group = 0xFFFFFFFFu;
  std::int8_t bank = -1;
  std::uint8_t core = 0;
};

class KernelBuilder {
 public:
  KernelBuilder(ScheduleGraph& graph, const HardwareConfig& hw, std::uint32_t dma_queues);

  ScheduleGraph& graph() { return graph_; }
  const HardwareConfig& hw() const { return hw_; }
  // Label prefix of the ops that follow, e.g. "L3." (layer) — kept short: labels are built for every op.
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }

  // A DMA transfer on the next queue of `core` (or `queue` when >= 0). `contiguous`: the run in HBM each
  // descriptor covers (0 = a partition's bytes), so it takes partitions x ceil(bytes per partition / run)
  // descriptors. `dge`: who writes them (schedule_graph.hpp DgeMode); with swdge a GpSimd `descriptors` op
  // "<label>.dge" is emitted first, takes `deps`, and the transfer waits for it (descriptor_op() returns it).
  OpId dma(std::uint8_t core, std::uint64_t bytes, std::uint32_t partitions, Location src, Location dst,
           const Deps& deps, const char* phase, const std::string& label, int queue = -1, std::uint8_t peer = 0,
           std::uint32_t contiguous = 0, DgeMode dge = DgeMode::static_);
  // The descriptor-generation op of the last swdge dma() (kNoOp after any other transfer).
  OpId descriptor_op() const { return last_descriptor_op_; }
  // A cross-core exchange on GpSimd's own DMA engine (nki.isa.sendrecv, dma_engine=gpsimd_dma): `bytes` of this
  // core's SBUF to core `peer`'s, an op in GpSimd's instruction stream (engines/cost_model.hpp times it).
  OpId sendrecv(std::uint8_t core, std::uint64_t bytes, std::uint32_t partitions, std::uint8_t peer, const Deps& deps,
                const char* phase, const std::string& label);
  // A GpSimd gather (nki.isa.nc_n_gather / local_gather, engines/gather_cost.hpp): `elements` gathered per
  // partition on `partitions` partitions, `elements_per_index` contiguous elements per index, indices stored
  // `index_bytes` wide (1 for uint8 code indices: widened to uint32 first), data of `dtype`.
  OpId gather(std::uint8_t core, std::uint32_t elements, std::uint32_t partitions, std::uint16_t elements_per_index,
              std::uint8_t index_bytes, const Deps& deps, const char* phase, const std::string& label,
              Dtype dtype = Dtype::bf16);
  OpId matmul(std::uint8_t core, std::uint32_t k, std::uint32_t m, std::uint32_t n, bool new_stationary,
              const Accumulator& acc, const Deps& deps, const char* phase, const std::string& label,
              Dtype dtype = Dtype::bf16);
  OpId transpose(std::uint8_t core, std::uint32_t partitions, std::uint32_t free, const Accumulator& acc,
                 const Deps& deps, const char* phase, const std::string& label);
  // A vector/scalar/GpSimd instruction over `free` elements per partition; `release` drains an accumulator.
  OpId compute(Engine engine, OpKind kind, std::uint8_t core, std::uint32_t free, std::uint32_t partitions,
               const Deps& deps, const char* phase, const std::string& label, bool input_in_psum = false,
               const Accumulator* release = nullptr, Dtype dtype = Dtype::bf16);
  OpId all_reduce(std::uint8_t core, std::uint64_t bytes, const Deps& deps, const char* phase, const std::string& label);

  // A new accumulation group on the next PSUM bank of `core`. A `long_lived` group (one that stays open while
  // later groups are issued, e.g. a down projection accumulated across experts) takes its bank out of the
  // rotation until its release is emitted, so no later group waits on a release issued after it.
  Accumulator open_accumulator(std::uint8_t core, const std::string& name, bool long_lived = false);
  // A new accumulation group on a bank the caller assigned (a static per-role PSUM plan, as NKI allocates).
  Accumulator open_accumulator_at(std::uint8_t core, std::uint32_t bank, const std::string& name);
  void release(OpId drain, const Accumulator& acc);

  // An SBUF buffer of `core`; use() ties ops to it (its lifetime spans the ops that use it).
  std::uint32_t buffer(std::uint8_t core, const std::string& name, std::uint64_t bytes_per_partition,
                       std::uint32_t partitions = 128);
  void use(OpId op, std::uint32_t buffer) { graph_.use_buffer(op, buffer); }

 private:
  OpId add(Op op, const Deps& deps, const char* phase, const std::string& label);
  std::uint16_t phase_of(const char* phase);

  ScheduleGraph& graph_;
  const HardwareConfig& hw_;
  std::uint32_t dma_queues_;
  std::string prefix_;
  std::vector<std::uint32_t> next_queue_;  // per core
  std::vector<std::uint32_t> next_bank_;   // per core
  std::vector<std::vector<char>> reserved_;  // per core and bank: held by a long-lived group
  std::vector<std::pair<const char*, std::uint16_t>> phase_cache_;
  OpId last_descriptor_op_ = kNoOp;
};

// Ceiling division for tile counts.
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace stasim
