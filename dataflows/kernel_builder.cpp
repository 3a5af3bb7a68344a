#include "dataflows/kernel_builder.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"

namespace stasim {

KernelBuilder::KernelBuilder(ScheduleGraph& graph, const HardwareConfig& hw, std::uint32_t dma_queues)
    : graph_(graph), hw_(hw), dma_queues_(std::max<std::uint32_t>(1, std::min(dma_queues, hw.dma.queues))),
      next_queue_(hw.lnc, 0), next_bank_(hw.lnc, 0), reserved_(hw.lnc, std::vector<char>(hw.psum.banks, 0)) {}

OpId KernelBuilder::add(Op op, const Deps& deps, const char* phase, const std::string& label) {
  op.phase = phase_of(phase);
  OpId id = graph_.add_op(std::move(op), label, prefix_);
  for (OpId d : deps)
    if (d != kNoOp) graph_.add_dep(d, id);
  return id;
}

std::uint16_t KernelBuilder::phase_of(const char* phase) {
  // Phases are string literals: look them up by address first (a builder adds tens of thousands of ops).
  auto cached = std::find_if(phase_cache_.begin(), phase_cache_.end(), [phase](const auto& p) { return p.first == phase; });
  if (cached == phase_cache_.end()) {
    phase_cache_.emplace_back(phase, graph_.phase_id(phase));
    cached = phase_cache_.end() - 1;
  }
  return cached->second;
}

OpId KernelBuilder::dma(std::uint8_t core, std::uint64_t bytes, std::uint32_t partitions, Location src,
                        Location dst, const Deps& deps, const char* phase, const std::string& label, int queue,
                        std::uint8_t peer, std::uint32_t contiguous, DgeMode dge) {
  Op op;
  op.engine = Engine::dma;
  op.kind = OpKind::transfer;
  op.core = core;
  op.bytes = std::max<std::uint64_t>(bytes, 1);
  op.partitions = std::max<std::uint32_t>(1, std::min(partitions, hw_.sbuf.partitions));
  op.src = src;
  op.dst = dst;
  op.peer_core = peer;
  op.contiguous_bytes = contiguous;
  op.dge = dge;
  if (queue >= 0) {
    op.queue = static_cast<std::uint16_t>(queue);
  } else {
    op.queue = static_cast<std::uint16_t>(next_queue_[core]);
    next_queue_[core] = (next_queue_[core] + 1) % dma_queues_;
  }
  last_descriptor_op_ = kNoOp;
  if (dge != DgeMode::swdge) return add(std::move(op), deps, phase, label);
  // Software DGE: GpSimd writes the descriptors once the addresses are known (the transfer's own dependencies),
  // in its program order at this point; the transfer starts when they are written.
  Op named = op;
  named.phase = phase_of(phase);
  OpId gen = graph_.add_descriptor_op(named, prefix_ + label);
  for (OpId d : deps)
    if (d != kNoOp) graph_.add_dep(d, gen);
  OpId id = add(std::move(op), {gen}, phase, label);
  last_descriptor_op_ = gen;
  return id;
}

OpId KernelBuilder::gather(std::uint8_t core, std::uint32_t elements, std::uint32_t partitions,
                           std::uint16_t elements_per_index, std::uint8_t index_bytes, const Deps& deps,
                           const char* phase, const std::string& label, Dtype dtype) {
  Op op;
  op.engine = Engine::gpsimd;
  op.kind = OpKind::gather;
  op.core = core;
  op.free = std::max<std::uint32_t>(1, elements);
  op.partitions = std::max<std::uint32_t>(1, std::min(partitions, hw_.sbuf.partitions));
  op.elements_per_index = std::max<std::uint16_t>(1, elements_per_index);
  op.index_bytes = index_bytes;
  op.dtype = dtype;
  return add(std::move(op), deps, phase, label);
}

OpId KernelBuilder::sendrecv(std::uint8_t core, std::uint64_t bytes, std::uint32_t partitions, std::uint8_t peer,
                             const Deps& deps, const char* phase, const std::string& label) {
  Op op;
  op.engine = Engine::gpsimd;
  op.kind = OpKind::sendrecv;
  op.core = core;
  op.bytes = std::max<std::uint64_t>(bytes, 1);
  op.partitions = std::max<std::uint32_t>(1, std::min(partitions, hw_.sbuf.partitions));
  op.src = Location::sbuf;
  op.dst = Location::peer;
  op.peer_core = peer;
  return add(std::move(op), deps, phase, label);
}

OpId KernelBuilder::matmul(std::uint8_t core, std::uint32_t k, std::uint32_t m, std::uint32_t n, bool new_stationary,
                           const Accumulator& acc, const Deps& deps, const char* phase, const std::string& label,
                           Dtype dtype) {
  Op op;
  op.engine = Engine::tensor;
  op.kind = OpKind::matmul;
  op.core = core;
  op.k = k;
  op.m = m;
  op.n = n;
  op.partitions = std::min<std::uint32_t>(k, 128);
  op.dtype = dtype;
  op.new_stationary = new_stationary;
  OpId id = add(std::move(op), deps, phase, label);
  graph_.add_to_psum_group(id, acc.group);
  return id;
}

OpId KernelBuilder::transpose(std::uint8_t core, std::uint32_t partitions, std::uint32_t free, const Accumulator& acc,
                              const Deps& deps, const char* phase, const std::string& label) {
  Op op;
  op.engine = Engine::tensor;
  op.kind = OpKind::transpose;
  op.core = core;
  op.partitions = std::max<std::uint32_t>(1, partitions);
  op.free = std::max<std::uint32_t>(1, free);
  OpId id = add(std::move(op), deps, phase, label);
  graph_.add_to_psum_group(id, acc.group);
  return id;
}

OpId KernelBuilder::compute(Engine engine, OpKind kind, std::uint8_t core, std::uint32_t free,
                            std::uint32_t partitions, const Deps& deps, const char* phase, const std::string& label,
                            bool input_in_psum, const Accumulator* release_acc, Dtype dtype) {
  Op op;
  op.engine = engine;
  op.kind = kind;
  op.core = core;
  op.free = std::max<std::uint32_t>(1, free);
  op.partitions = std::max<std::uint32_t>(1, std::min(partitions, hw_.sbuf.partitions));
  op.input_in_psum = input_in_psum;
  op.dtype = dtype;
  if (release_acc) op.releases_psum_bank = release_acc->bank;
  OpId id = add(std::move(op), deps, phase, label);
  if (release_acc) {
    graph_.set_release(release_acc->group, id);
    reserved_[release_acc->core][release_acc->bank] = 0;
  }
  return id;
}

OpId KernelBuilder::all_reduce(std::uint8_t core, std::uint64_t bytes, const Deps& deps, const char* phase,
                               const std::string& label) {
  Op op;
  op.engine = Engine::collective;
  op.kind = OpKind::all_reduce;
  op.core = core;
  op.bytes = std::max<std::uint64_t>(bytes, 1);
  return add(std::move(op), deps, phase, label);
}

Accumulator KernelBuilder::open_accumulator(std::uint8_t core, const std::string& name, bool long_lived) {
  Accumulator acc;
  acc.core = core;
  std::uint32_t banks = hw_.psum.banks;
  std::uint32_t tried = 0;
  while (reserved_[core][next_bank_[core]] && tried++ < banks) next_bank_[core] = (next_bank_[core] + 1) % banks;
  if (tried > banks)
    throw InputError("the dataflow keeps all " + std::to_string(banks) + " PSUM banks of core " +
                     std::to_string(core) + " held by long-lived accumulations (a down projection summed in PSUM " +
                     "across experts); none is left for '" + name + "': choose another --down-schedule");
  acc.bank = static_cast<std::int8_t>(next_bank_[core]);
  if (long_lived) reserved_[core][next_bank_[core]] = 1;
  next_bank_[core] = (next_bank_[core] + 1) % banks;
  acc.group = graph_.new_psum_group(core, acc.bank, prefix_ + name);
  return acc;
}

Accumulator KernelBuilder::open_accumulator_at(std::uint8_t core, std::uint32_t bank, const std::string& name) {
  Accumulator acc;
  acc.core = core;
  acc.bank = static_cast<std::int8_t>(bank % hw_.psum.banks);
  acc.group = graph_.new_psum_group(core, acc.bank, prefix_ + name);
  return acc;
}

void KernelBuilder::release(OpId drain, const Accumulator& acc) {
  graph_.mutable_op(drain).releases_psum_bank = acc.bank;
  graph_.set_release(acc.group, drain);
  reserved_[acc.core][acc.bank] = 0;
}

std::uint32_t KernelBuilder::buffer(std::uint8_t core, const std::string& name, std::uint64_t bytes_per_partition,
                                    std::uint32_t partitions) {
  Buffer b;
  b.name = prefix_ + name;
  b.core = core;
  b.partitions = std::max<std::uint32_t>(1, std::min(partitions, hw_.sbuf.partitions));
  b.bytes_per_partition = std::max<std::uint64_t>(1, bytes_per_partition);
  return graph_.add_buffer(std::move(b));
}

}  // namespace stasim
