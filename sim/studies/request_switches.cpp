#include "sim/studies/request_switches.hpp"

#include <string>

namespace stasim {

const std::vector<RequestSwitch>& request_switches() {
  static const std::vector<RequestSwitch> table = {
      {"reuse", "--no-reuse", "compute z once per expert instead of once per token (T too with --recompute-table)", &RunRequest::no_reuse,
       &DataflowOptions::reuse_shared_projections, true, false},
      {"batch_gathers", "--no-batch-gathers", "one GpSimd gather per expert and projection", &RunRequest::no_batch_gathers,
       &DataflowOptions::batch_gathers, true, false},
      {"group_exchange", "--no-group-exchange",
       "with batched gathers, each expert's partial gate/up rows cross the cores in their own sendrecvs, not one per "
       "gather group",
       &RunRequest::no_group_exchange, &DataflowOptions::group_exchange, true, true},
      {"joint_psum", "--no-joint-psum", "VQ and LR parts each go through SBUF before the add", &RunRequest::no_joint_psum,
       &DataflowOptions::joint_psum_accumulation, true, false},
      {"overlap", "--no-overlap", "no prefetch across the three overlap windows", &RunRequest::no_overlap,
       &DataflowOptions::overlap_windows, true, false},
      {"all_experts", "--all-experts",
       "run every expert once over all tokens (routing as an affinity mask) instead of the activated ones",
       &RunRequest::all_experts, &DataflowOptions::all_experts, false, false},
      {"routed_swdge", "--routed-swdge",
       "the routed experts' weight loads get their descriptors from GpSimd (software DGE) instead of the hardware DGE",
       &RunRequest::routed_swdge, &DataflowOptions::routed_swdge, false, false},
      {"private_hwdge", "--private-hwdge",
       "the hybrid's J_e and C_e loads get their descriptors from the hardware DGE instead of GpSimd (software DGE)",
       &RunRequest::private_hwdge, &DataflowOptions::private_hwdge, false, true},
      {"fuse_projections", "--fuse-projections",
       "router and shared-expert gate/up (and dense layers' gate/up) as one wider projection",
       &RunRequest::fuse_projections, &DataflowOptions::fuse_projections, false, false},
      {"fused_gate_up_loads", "--fused-gate-up-loads",
       "dense experts' gate and up weights loaded as one view (runs of 2 x I per row) instead of two (runs of I)",
       &RunRequest::fused_gate_up_loads, &DataflowOptions::fused_gate_up_loads, false, false},
      {"fused_gate_up_exchange", "--fused-gate-up-exchange",
       "with H split over the cores, an expert's partial gate and up rows cross in one sendrecv instead of two",
       &RunRequest::fused_gate_up_exchange, &DataflowOptions::fused_gate_up_exchange, false, true},
      {"fp32_table", "--no-fp32-table",
       "keep the code-word table T in BF16 instead of FP32 (its PSUM result): BF16 gathers and a full-rate TensorE "
       "reduction",
       &RunRequest::no_fp32_table, &DataflowOptions::fp32_table, true, true},
      {"recompute_table", "--recompute-table",
       "with --no-reuse, recompute the code-word table T per expert as well as z (by default only z is)",
       &RunRequest::recompute_table, &DataflowOptions::recompute_table, false, true},
      {"split_top_k", "--split-top-k",
       "the rank's cores split each token's top-k experts (whole experts over all of H, outputs summed once) instead "
       "of splitting H or the tokens",
       &RunRequest::split_top_k, &DataflowOptions::split_top_k, false, true},
      {"group_routes", "--group-routes",
       "several tokens per core: the hybrid loads each distinct expert once for all the core's tokens routed to it "
       "(token-vector gathers) instead of once per (token, expert) route",
       &RunRequest::group_routes, &DataflowOptions::group_routes, false, true},
      {"explicit_psum", "--explicit-psum",
       "dense and w4a8-fused experts' PSUM at nki-library's explicit addresses: gate, up and the drained down projection "
       "on the same banks from bank 0 for every expert (each expert's gate waits for the previous one's down drain) "
       "instead of rotating over the free banks",
       &RunRequest::explicit_psum, &DataflowOptions::explicit_psum, false, true},
  };
  return table;
}

const RequestSwitch* find_request_switch(const std::string& name) {
  for (const RequestSwitch& s : request_switches())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace stasim
