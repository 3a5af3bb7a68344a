#include "tools/request_options.hpp"

#include "stasim/io.hpp"
#include "stasim/stasim.hpp"

namespace stasim::cli {

void DeploymentOptions::apply(RunRequest& request) const {
  auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
  if (tp || given(tp_given)) request.tp = tp;
  if (lnc || given(lnc_given)) request.lnc = lnc;
  if (context || given(context_given)) request.context = context;
}

void add_deployment_options(CLI::App* sub, DeploymentOptions& d) {
  d.tp_given = sub->add_option("--tp", d.tp, "tensor-parallel degree (default: the model's deployment)")->default_str("");
  d.lnc_given = sub->add_option("--lnc", d.lnc, "physical cores per rank (default: the hardware's lnc; a model's deployment.lnc must match it where the "
                                "hardware has logical cores, lnc > 1)")->default_str("");
  d.context_given =
      sub->add_option("--context", d.context, "tokens in the KV cache (default: the model's deployment)")->default_str("");
}

CLI::Option* add_routing_options(CLI::App* sub, RunRequest& r) {
  sub->add_option("--routes", r.routes, "routing of the batch: YAML/JSON/CSV file, one row of top-k experts per token");
  return sub->add_option("--routing-seed", r.routing_seed, "seed of the uniform routing used without --routes")->capture_default_str();
}

void add_switch_options(CLI::App* sub, RunRequest& r) {
  for (const RequestSwitch& s : request_switches()) sub->add_flag(s.run_option, r.*s.field, s.help);
}

void add_set_option(CLI::App* sub, RunRequest& r) {
  sub->add_option("--set", r.sets, "override a hardware key (key.path=value) or a model key (model.key.path=value)");
}

}  // namespace stasim::cli
