// The options of a decode request that `run`, `compare` and `sweep` share, defined once so they mean the same
// on every command: --tp/--lnc/--context (the deployment), --routes/--routing-seed (the batch's routing), the
// CARDAN switches (--no-reuse, --no-batch-gathers, --no-group-exchange, --no-joint-psum, --no-overlap), --all-experts,
// --routed-swdge, --private-hwdge, --fuse-projections, --fused-gate-up-loads, --fused-gate-up-exchange and --set.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

#include "stasim/stasim.hpp"

namespace stasim::cli {

// The deployment overrides as parsed: 0 = the model's (or hardware's) default. A 0 given on the command line
// is passed on, so it is reported as out of range rather than taken as the default.
struct DeploymentOptions {
  std::int64_t tp = 0, lnc = 0, context = 0;
  CLI::Option* tp_given = nullptr;
  CLI::Option* lnc_given = nullptr;
  CLI::Option* context_given = nullptr;

  // Sets request.tp/lnc/context for the options given.
  void apply(RunRequest& request) const;
};

void add_deployment_options(CLI::App* sub, DeploymentOptions& deployment);
// --routes, --routing-seed; returns --routing-seed (whether it was given: a sweep config's seed stays otherwise)
CLI::Option* add_routing_options(CLI::App* sub, RunRequest& request);
void add_switch_options(CLI::App* sub, RunRequest& request);    // the switches, --fuse-projections
void add_set_option(CLI::App* sub, RunRequest& request);        // --set

}  // namespace stasim::cli
