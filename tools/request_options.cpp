#include "tools/request_options.hpp"

namespace stasim::cli {

void DeploymentOptions::apply(RunRequest& request) const {
  auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
  if (tp || given(tp_given)) request.tp = tp;
  if (lnc || given(lnc_given)) request.lnc = lnc;
  if (context || given(context_given)) request.context = context;
}

void add_deployment_options(CLI::App* sub, DeploymentOptions& d) {
  d.tp_given = sub->add_option("--tp", d.tp, "tensor-parallel degree (default: the model's deployment)")->default_str("");
  d.lnc_given = sub->add_option("--lnc", d.lnc, "physical cores per rank (default: the hardware's lnc)")->default_str("");
  d.context_given =
      sub->add_option("--context", d.context, "tokens in the KV cache (default: the model's deployment)")->default_str("");
}

CLI::Option* add_routing_options(CLI::App* sub, RunRequest& r) {
  sub->add_option("--routes", r.routes, "routing of the batch: YAML/JSON/CSV file, one row of top-k experts per token");
  return sub->add_option("--routing-seed", r.routing_seed, "seed of the uniform routing used without --routes")->capture_default_str();
}

void add_switch_options(CLI::App* sub, RunRequest& r) {
  sub->add_flag("--no-reuse", r.no_reuse, "compute z and T once per expert instead of once per token");
  sub->add_flag("--no-batch-gathers", r.no_batch_gathers, "one GpSimd gather per expert and projection");
  sub->add_flag("--no-group-exchange", r.no_group_exchange,
                "with batched gathers, each expert's partial gate/up rows cross the cores in their own sendrecvs, not one per gather group");
  sub->add_flag("--no-joint-psum", r.no_joint_psum, "VQ and LR parts each go through SBUF before the add");
  sub->add_flag("--no-overlap", r.no_overlap, "no prefetch across the three overlap windows");
  sub->add_flag("--all-experts", r.all_experts,
                "run every expert once over all tokens (routing as an affinity mask) instead of the activated ones");
  sub->add_flag("--routed-swdge", r.routed_swdge,
                "the routed experts' weight loads get their descriptors from GpSimd (software DGE) instead of the hardware DGE");
  sub->add_flag("--private-hwdge", r.private_hwdge,
                "the hybrid's J_e and C_e loads get their descriptors from the hardware DGE instead of GpSimd (software DGE)");
  sub->add_flag("--fp32-table", r.fp32_table,
                "keep the code-word table T in FP32 (its PSUM result) instead of BF16: FP32 gathers and a quarter-rate TensorE reduction");
  sub->add_flag("--fuse-projections", r.fuse_projections,
                "router and shared-expert gate/up (and dense layers' gate/up) as one wider projection");
  sub->add_flag("--fused-gate-up-loads", r.fused_gate_up_loads,
                "dense experts' gate and up weights loaded as one view (runs of 2 x I per row) instead of two (runs of I)");
  sub->add_flag("--fused-gate-up-exchange", r.fused_gate_up_exchange,
                "with H split over the cores, an expert's partial gate and up rows cross in one sendrecv instead of two");
}

void add_set_option(CLI::App* sub, RunRequest& r) {
  sub->add_option("--set", r.sets, "override a hardware key (key.path=value) or a model key (model.key.path=value)");
}

}  // namespace stasim::cli
