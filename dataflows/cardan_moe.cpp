// The hybrid LR+VQ routed experts of docs/cardan.md on the cores of a rank, in the order a software-pipelined
// kernel issues them (each engine's queue takes its instructions in this order):
//   1. B and D (static, prefetched), the shared round: partial z rows and T, z exchanged and summed;
//   2. every expert's J_e and C_e, then every expert's W_down (addresses known right after routing);
//   3. the gathers over expert groups in J arrival order, gate and up of a group adjacent, each expert's
//      reduction waiting only for its own group's gathers; without reuse, each expert's shared round is issued
//      one expert ahead of the expert that needs it, so TensorE computes it while GpSimd gathers the previous.
#include <algorithm>

#include "dataflows/cardan_core.hpp"
#include "dataflows/gather_groups.hpp"

namespace stasim {

void cardan_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  std::vector<CardanCore> cores;
  cores.reserve(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) cores.emplace_back(ctx, c, in, combiners[c]);
  auto each = [&](auto&& step) {
    for (CardanCore& c : cores)
      if (c.active()) step(c);
  };
  std::uint32_t experts = 0;
  bool split_h = false;
  each([&](CardanCore& c) {
    experts = std::max(experts, c.experts());
    split_h = split_h || c.splits_h();
  });
  if (experts == 0) return;
  const DataflowOptions& opt = ctx.options;

  auto shared_round = [&](std::uint32_t round) {
    each([&](CardanCore& c) { c.compute_round(round); });
    each([&](CardanCore& c) { c.send_z(round); });
    each([&](CardanCore& c) { c.finish_z(round, cores); });
  };
  auto expert = [&](std::uint32_t e) {
    each([&](CardanCore& c) { c.project(e); });
    if (split_h) {
      each([&](CardanCore& c) { c.send_partials(e); });
      each([&](CardanCore& c) { c.sum_partials(e, cores); });
    }
    each([&](CardanCore& c) { c.finish_expert(e); });
  };

  each([](CardanCore& c) { c.load_shared(); });
  shared_round(0);
  each([](CardanCore& c) { c.load_private(); });
  std::uint32_t rounds = opt.reuse_shared_projections ? 1 : experts, next_round = 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;
  if (opt.batch_gathers) groups = gather_groups(ctx, experts);
  else
    for (std::uint32_t e = 0; e < experts; ++e) groups.push_back({e, 1});
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto [first, count] = groups[g];
    // The rounds of the group's experts and one expert beyond it.
    while (next_round < std::min(rounds, first + count + 1)) shared_round(next_round++);
    std::string name = opt.batch_gathers ? "g" + std::to_string(g) : "e" + std::to_string(first);
    each([&](CardanCore& c) { c.gather(first, count, name); });
    for (std::uint32_t e = first; e < first + count; ++e) expert(e);
  }
}

}  // namespace stasim
