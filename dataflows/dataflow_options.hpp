// Options of the dataflow builders: the mechanisms of docs/cardan.md as switches (every ablation is a flag),
// the down-projection schedule, and kernel parameters (DMA queues, weight buffering). Defaults are the full
// mechanism; `auto` down schedules are resolved by the run driver, which simulates the candidates.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/schedule_graph.hpp"
#include "workloads/routing.hpp"

namespace stasim {

enum class Stationary : std::uint8_t { weight, activation };
enum class Accumulate : std::uint8_t { sbuf, psum };

struct DownSchedule {
  Stationary stationary = Stationary::weight;
  Accumulate accumulate = Accumulate::sbuf;
  std::string name() const;  // "weight-sbuf", "activation-psum", ...
};

// Parses "weight-sbuf" | "weight-psum" | "activation-sbuf" | "activation-psum"; false for anything else.
bool parse_down_schedule(const std::string& text, DownSchedule& out);

struct DataflowOptions {
  // cardan.md "Removing redundancy" and "The schedule".
  bool reuse_shared_projections = true;  // z and T once per token, not once per expert
  bool batch_gathers = true;             // one GpSimd gather per projection for all activated experts
  // With batched gathers and H split over the cores: a gather group's experts reach their partial gate/up rows
  // together, and cross to the other cores in one sendrecv per group (all their projections side by side)
  // instead of one per expert and projection (CardanCore::send_group_partials).
  bool group_exchange = true;
  bool joint_psum_accumulation = true;   // VQ reduction and C^T z accumulate into one PSUM group
  bool overlap_windows = true;           // B, D during the router; J, C and down weights right after routing
  DownSchedule down;
  // Kernel parameters.
  std::uint32_t dma_queues = 8;      // DMA queues a kernel spreads its transfers over, per core
  std::uint32_t weight_buffers = 2;  // dense: expert weight slots (2 = double buffering); 0 = all resident
  std::int64_t layers = 0;           // simulate the first N layers only (0 = all)
  // Weight layout in HBM. false: the checkpoint's per-rank shard, row-major, so a column slice (one core's
  // share of I, a 512-column chunk of the LM head) arrives in runs of its width, one DMA descriptor per
  // run. true: every core's tiles stored contiguously (an offline re-layout). The hybrid representation's own
  // tensors (J, C, B, D) are always written in the kernel's tile layout.
  bool pretiled_weights = false;
  // Surrounding-projection fusion (docs/cardan.md): the dense projections that read the MoE block's normalized
  // hidden state (router scores, shared-expert gate/up) and a dense layer's gate/up stream as one wider weight
  // through one chain of matmuls (BF16: the fused router no longer runs in FP32).
  bool fuse_projections = false;
  // Batched decode: the step's routing (B tokens x k experts); without one, a uniform trace drawn from
  // `routing_seed`. The same routing applies to every MoE layer of the step.
  std::shared_ptr<const RoutingTrace> routes;
  std::uint64_t routing_seed = 0;
  // All-experts mode (nki-library all_expert_impl.py: every expert once over all tokens, the routing as an
  // affinity mask) only when asked; NxDI's automatic switch at B·k/E >= 1 is not modelled: the study loads only
  // the activated experts at every batch size.
  bool all_experts = false;
  // Static weights issued as early as the SBUF regions allow (DecodeContext::static_deps), not at the layer input.
  bool prefetch_static = true;
  // Who writes the descriptors of the routed experts' loads (their addresses come from the router's indices in
  // SBUF): hardware DGE where the core has it (nki-library mlp_tkg loads expert weights with dge_mode.hwdge),
  // else GpSimd; `swdge` forces GpSimd (gate_up_projection_mx_shard_H's MX loads), competing with the gathers.
  bool routed_swdge = false;
  // Who writes the descriptors of the hybrid's private loads (J_e, C_e): GpSimd's software DGE by default —
  // assumed, from the measured GpSimd times, which hold a part that moves with neither d nor gather batching
  // outside the selection instructions (docs/hardware-model.md, "Which loads use software DGE");
  // `private_hwdge` gives them to the hardware DGE instead, as W_down and the dense weights.
  bool private_hwdge = false;
  // Dense experts' gate and up weights loaded as one view of NxDI's per-rank [E, H, 2, I] (each partition's rows
  // in one run of 2 x I elements) instead of nki-library's two views (runs of I each, twice the descriptors): the
  // hand optimisation of a public Trainium 3 megakernel (docs/hardware-model.md DMA, MEGA).
  bool fused_gate_up_loads = false;
  // With H split over the cores, an expert's partial gate and up rows cross to the other cores in one sendrecv of
  // both (nki-library's gate/up projection does so when it tiles columns, use_fused_gate_up_sendrecv) instead of
  // one per projection (its selective-expert path, column tiling off): half the exchanges, twice the bytes each.
  bool fused_gate_up_exchange = false;
  // The hybrid's code-word table T kept in FP32, its PSUM result's precision: the gathered rows are FP32 and their
  // reduction over the blocks runs on TensorE at the FP32 rate (a quarter). Which one the study's kernel keeps is
  // not public; FP32 is the structure the measured profiles choose (the six-layer TensorE time holds a part that
  // neither reuse nor batching moves, which the FP32 reduction supplies: docs/fidelity.md "Known gaps"); `--no-fp32-table`
  // keeps it in BF16, as B, D and C_e are.
  bool fp32_table = true;
  // Without reuse (reuse_shared_projections false), recompute the table T per expert as well as z, as
  // docs/cardan.md words the ablation. By default only z is: the measured TensorE time a round saves (632 − 562 µs
  // over six layers, 0.83 µs per round and core) is what z's 32 skinny matmuls cost at the 64-cycle issue, and T
  // depends on neither the expert nor its routing.
  bool recompute_table = false;
  // PSUM at the explicit addresses nki-library's selective kernel gives it when it allocates itself (the hidden
  // state in HBM: selective_expert_impl.py, need_auto_alloc = H >= 16K or hidden_in_sbuf): each tensor a whole
  // bank, an expert's gate and up on the same banks (one per 128 columns of I), a drained down projection from bank
  // 0, and every expert on the same banks, so an expert's first gate matmul waits for the previous expert's down
  // projection to be drained. Dense and W4A8 (the hybrid's PSUM layout is its own). By default the tensors rotate
  // over the gate/up pool, as a compiler's allocation may (the fused MoE block hands the kernel its hidden state in
  // SBUF, and the kernel then leaves PSUM to the compiler, whose placement is not documented).
  bool explicit_psum = false;
  // The rank's cores split every token's top-k experts (core c takes the k-th experts c·k/LNC to (c+1)·k/LNC − 1,
  // each over the whole H) and sum their outputs once at the end, as nki-library's MX selective-expert kernel
  // does (selective_expert_mx_impl.py, shard_on_K), instead of splitting H (one token) or the tokens
  // (several), as its BF16 kernel does (dataflows/expert_groups.hpp). No partial gate/up rows cross per expert;
  // each core reads whole experts and, in the hybrid, computes z and T over all of H for itself.
  bool split_top_k = false;
  // Several tokens per core: the hybrid loads each distinct expert of a core's tokens once and gathers all its
  // tokens' code words with one index (T laid out [b, k, t]; the down matmuls carry T_e), instead of running the
  // selective kernel's (token, k) loop, where every route loads its expert's J_e, C_e and W_down for its one
  // token as the dense kernel loads its weights (dataflows/expert_groups.hpp). Per route by default: the study
  // measured HBM bytes and DMA-active time roughly doubling from batch 8 to 16 for the hybrid as for dense, which
  // loads shared between a core's tokens cannot do once most experts are active (OLMoE: 1.6x). Changes nothing at
  // one token, nor a dataflow without the hybrid's loop (dense, w4a8 and xla keep theirs).
  bool group_routes = false;
};

}  // namespace stasim
