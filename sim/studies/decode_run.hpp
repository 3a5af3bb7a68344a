// The run driver of `stasim run` and `stasim compare`: loads the model and hardware, builds the decode step of
// a dataflow, simulates it (on this process's one reusable kernel, so several can run in one process), resolves
// the `auto` down-projection schedule by simulating the four candidates and keeping the fastest (builders never
// run the simulator), and turns the result into decode metrics.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

struct RunRequest {
  std::string model = "qwen3-30b-a3b";
  std::string hw = "trn3-calibrated";  // configs/hw/trn3-calibrated.yaml, written by `stasim calibrate`
  std::string dataflow = "cardan";
  std::int64_t d = 8, r = 384, K = 256;
  std::optional<std::int64_t> batch, tp, lnc, context;
  std::int64_t layers = 0;
  std::string down = "auto";
  bool no_reuse = false, no_batch_gathers = false, no_group_exchange = false, no_joint_psum = false, no_overlap = false;
  std::vector<std::string> sets;  // hardware keys, or model keys prefixed "model."
  std::string routes;                 // batched decode: routing file (workloads/routing.hpp formats); "" = seeded
  std::uint64_t routing_seed = 0;     // uniform routing drawn from this seed when no file is given
  bool fuse_projections = false;      // router + shared-expert gate/up (and dense layers' gate/up) as one projection
  bool all_experts = false;           // every expert once over all tokens (nki-library all_expert_impl), never automatic
  bool routed_swdge = false;          // routed experts' loads: descriptors by GpSimd (software DGE), not hardware DGE
  bool private_hwdge = false;         // the hybrid's J_e and C_e loads: descriptors by the hardware DGE, not GpSimd
  bool fused_gate_up_loads = false;   // dense experts' gate/up loaded as one fused view (runs of 2 x I)
  bool fused_gate_up_exchange = false;  // an expert's partial gate and up rows in one sendrecv (H split), not two
  bool no_fp32_table = false;         // the hybrid's code-word table T (and its gathered rows) in BF16, not FP32
  bool recompute_table = false;       // without reuse, T recomputed per expert as well as z
  bool explicit_psum = false;         // dense/W4A8 PSUM at nki-library's explicit addresses, nothing rotating
  bool split_top_k = false;           // each core takes top_k / LNC of every token's experts over all of H
  bool group_routes = false;          // the hybrid loads a core's distinct experts once for all their tokens
};

struct DecodeRun {
  std::string dataflow;
  bool compiler_lowered = false;  // the dataflow runs one kernel per op (xla, w4a8)
  ModelSpec model;
  Deployment deployment;
  Representation representation;
  HardwareConfig hw;
  DataflowOptions options;
  bool down_auto = false;
  std::vector<std::pair<std::string, double>> down_candidates_us;  // schedule name, TPOT (auto only)
  DecodeGraph decode;
  SimResult result;          // the device's step (result.total_ps)
  Picoseconds host_step_ps = 0;  // the host's part of the step (hw.runtime.step_us)
  // Time per output token as measured (the slope of host time over tokens): the device's step and the host's.
  Picoseconds tpot_ps() const { return result.total_ps + host_step_ps; }
};

DecodeRun run_decode(const RunRequest& request, const DataflowRegistry& registry);

nlohmann::json decode_json(const DecodeRun& run);
void print_decode(std::ostream& out, const DecodeRun& run);
// Side-by-side table of several runs; speedups relative to the first.
void print_comparison(std::ostream& out, const std::vector<DecodeRun>& runs);

// Largest batch a decode step takes (docs/hardware-model.md: the megakernel does not support bs > 64).
constexpr std::int64_t kMaxBatch = 64;

// Mean MoE-block time over the layers that have one (input ready on every core -> output ready on every core).
double moe_block_us(const DecodeRun& run);

}  // namespace stasim
