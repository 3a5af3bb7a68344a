// DecodeContext: what every block builder of one decode step shares: the model, deployment, representation,
// hardware and options, the KernelBuilder, the per-rank dimensions, and where the hidden state is ready on each
// physical core. One TP rank is built (ranks are symmetric); it spans `lnc` physical cores, over which the
// builders split I (experts, MLPs), heads (attention), columns (router, LM head).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dataflows/dataflow_options.hpp"
#include "dataflows/expert_groups.hpp"
#include "dataflows/kernel_builder.hpp"
#include "sim/core/hardware_config.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/representation.hpp"

namespace stasim {

struct DecodeContext {
  const ModelSpec& model;
  const Deployment& deployment;
  const Representation& representation;
  const HardwareConfig& hw;
  const DataflowOptions& options;
  KernelBuilder& b;

  std::uint32_t lnc = 1;      // physical cores of the rank
  std::uint32_t tokens = 1;   // T: tokens decoded per step (the batch)
  std::uint32_t hidden = 0;   // H
  std::uint32_t h_tiles = 0;  // H / 128
  std::vector<OpId> h_ready;  // per core: the op after which the layer input is available
  ExpertGroups experts;       // the routed experts every MoE layer of the step runs, with their tokens

  // Static weights (attention weights and KV cache, router weights, B and D, shared experts, Mamba state):
  // with prefetch they are issued as soon as the SBUF region they take is free, i.e. once the static weights
  // of the layer before the previous one (the other region holds the previous layer's) have been read, which
  // puts them on the DMA queues right behind the previous layer's routed experts. Without, at the layer input.
  void begin_layer(std::int64_t layer);
  Deps static_deps(std::uint32_t core) const;
  // `op` reads this layer's static weights last on `core` (its region is free once all such ops ran).
  void static_read(std::uint32_t core, OpId op);

  // Throws InputError when the routing does not fit the model or the batch.
  DecodeContext(const ModelSpec& m, const Deployment& d, const Representation& r, const HardwareConfig& h,
                const DataflowOptions& o, KernelBuilder& builder);

  // Columns of a dimension `total` that physical core `core` of the rank owns (an even split, remainder first).
  std::uint32_t share(std::uint64_t total, std::uint32_t core) const {
    std::uint64_t base = total / lnc, extra = total % lnc;
    return static_cast<std::uint32_t>(base + (core < extra ? 1 : 0));
  }
  // Contiguous run of a column slice `slice_bytes` wide out of rows `row_bytes` wide (0 = contiguous).
  std::uint32_t column_run(std::uint64_t slice_bytes, std::uint64_t row_bytes) const {
    if (options.pretiled_weights || slice_bytes >= row_bytes) return 0;
    return static_cast<std::uint32_t>(slice_bytes);
  }
  // The descriptor mode of a routed expert's loads (dynamic addresses): see DataflowOptions::routed_swdge.
  DgeMode routed_dge() const {
    return options.routed_swdge || hw.dma.hwdge_instances == 0 ? DgeMode::swdge : DgeMode::hwdge;
  }
  // The descriptor mode of the hybrid's private loads (J_e, C_e): see DataflowOptions::private_hwdge.
  DgeMode private_dge() const { return options.private_hwdge ? routed_dge() : DgeMode::swdge; }
  // The DMA queue of core `core`'s next cross-core exchange (nki.isa.sendrecv): by default its last queue, one
  // pipe of its own, so an exchange never waits in a queue behind weight loads issued ahead of it, nor holds them
  // up, and exchanges go one after another. core.dma.exchange_queues = n rotates them over the core's last n
  // queues in issue order; 0 reserves none (-1: the builder takes the next queue in turn, as for a load).
  int exchange_queue(std::uint32_t core) {
    const std::uint32_t n = std::min(hw.dma.exchange_queues, hw.dma.queues);
    if (n == 0) return -1;
    if (exchanges_issued_.size() <= core) exchanges_issued_.resize(core + 1, 0);
    return static_cast<int>(hw.dma.queues - n + exchanges_issued_[core]++ % n);
  }
  // Core `core`'s next cross-core exchange (nki.isa.sendrecv) of `bytes` on `partitions` to core `peer`, carried
  // as core.dma.exchange_engine says: a transfer on exchange_queue(core), or an op in GpSimd's stream. `deps` make
  // this core's side ready; `peer_side` the peer's side of the same sendrecv. On the shared DMA queues (the
  // default, "shared DMA with CoreBarrier synchronization", nki.isa.dma_engine) the cores meet in a core barrier
  // first, so the transfer waits for both sides (its cost adds the barrier's link crossing, memory/dma_cost.cpp);
  // GpSimd's own DMA documents no barrier and waits for this side only.
  OpId exchange(std::uint32_t core, std::uint64_t bytes, std::uint32_t partitions, std::uint32_t peer, const Deps& deps,
                const Deps& peer_side, const char* phase, const std::string& label) {
    const auto c = static_cast<std::uint8_t>(core), p = static_cast<std::uint8_t>(peer);
    if (exchanges_on_gpsimd()) return b.sendrecv(c, bytes, partitions, p, deps, phase, label);
    Deps both = deps;
    both.insert(both.end(), peer_side.begin(), peer_side.end());
    return b.dma(c, bytes, partitions, Location::sbuf, Location::peer, both, phase, label, exchange_queue(core), p);
  }
  bool exchanges_on_gpsimd() const { return hw.dma.exchange_engine == DmaConfig::ExchangeEngine::gpsimd_dma; }
  // Bytes of the hidden state of the batch: [H, T] in BF16.
  std::uint64_t hidden_bytes() const { return std::uint64_t(hidden) * tokens * 2; }

 private:
  std::int64_t layer_ = 0;
  std::vector<Deps> static_gate_;       // per core: deps of this layer's static loads
  std::vector<Deps> static_readers_[2];  // per region (layer parity), per core

 private:
  std::vector<std::uint32_t> exchanges_issued_;  // per core, for exchange_queue()
};

// "c1.e5." — the core and block part of an op label.
std::string label(std::uint32_t core, const std::string& block);
// "base[i]": the name of the i-th of a block's ops of one kind.
std::string idx(const std::string& base, std::uint64_t i);

}  // namespace stasim
