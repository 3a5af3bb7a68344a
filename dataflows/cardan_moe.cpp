// The hybrid LR+VQ routed experts of docs/cardan.md on the cores of a rank, in the order the compiler's
// instruction scheduler lays out the unrolled kernel (each engine's queue takes its instructions in this order):
//   1. B and D (static, prefetched), the shared round: z (this core's entries of r over all of H) and T;
//   2. the routed loads (addresses known right after routing): with hardware DGE every expert's J_e and C_e, then
//      every expert's W_down; with software DGE, whose descriptors are GpSimd work, one gather group ahead
//      between the gathers (group 0's J_e and C_e, then per group the next group's, this group's gathers, this
//      group's W_down);
//   3. the gathers over expert groups in J arrival order, gate and up of a group adjacent, each expert's
//      reduction waiting only for its own group's gathers;
//   4. the expert loop software-pipelined by one expert: expert e's gate/up (and the partial rows it sends to the
//      other cores) before expert e-1's tail (partial sums added, φ, product, down), so the exchange and the φ
//      chain of e-1 run while the engines work on e. Without reuse each expert's shared round is issued one expert
//      ahead.
// NKI kernels are traced into straight-line code that neuronx-cc's scheduler reorders within the dependencies
// (the NKI scheduling APIs exist to constrain that reordering); a fixed skew of one expert is the simplest order
// that hides one expert's latency chain behind the next one's work.
#include <algorithm>
#include <optional>

#include "dataflows/cardan_core.hpp"
#include "dataflows/gather_groups.hpp"

namespace stasim {

namespace {

// The hybrid's steps for a lane of cores that run in lockstep: all cores when they split H (the partial z and
// gate/up rows cross between them), one core at a time when they split the tokens.
void run_lane(const std::vector<CardanCore*>& lane, std::vector<CardanCore>& cores, const DataflowOptions& opt,
              std::uint32_t experts_per_call) {
  auto each = [&](auto&& step) {
    for (CardanCore* c : lane)
      if (c->active()) step(*c);
  };
  CardanCore& lead = *lane.front();
  const std::uint32_t experts = lead.experts();
  if (experts == 0 || !lead.active()) return;
  const bool split_h = lead.splits_h();
  auto shared_round = [&](std::uint32_t round) {
    each([&](CardanCore& c) { c.compute_round(round); });
  };
  // An expert's head: its gate/up (or their partial sums, sent to the other cores at once, or with its tail when
  // the exchanges run in GpSimd's stream, see CardanCore::sends_behind). Its tail: the partial sums added, φ, the
  // product and the down projection. With exchanges per gather group (DataflowOptions::group_exchange) a group
  // sends its experts' partial sums together instead (CardanCore::send_group_partials).
  const bool sends_behind = lead.sends_behind();
  const bool group_exchange = split_h && opt.batch_gathers && opt.group_exchange && lead.has_vq();
  const bool expert_exchange = split_h && !group_exchange;
  auto head = [&](std::uint32_t e) {
    each([&](CardanCore& c) { c.project(e); });
    if (expert_exchange && !sends_behind) each([&](CardanCore& c) { c.send_partials(e, cores); });
  };
  auto tail = [&](std::uint32_t e) {
    if (expert_exchange && sends_behind) each([&](CardanCore& c) { c.send_partials(e, cores); });
    if (split_h) each([&](CardanCore& c) { c.sum_partials(e, cores); });
    each([&](CardanCore& c) { c.finish_expert(e); });
  };

  each([](CardanCore& c) { c.load_shared(); });
  shared_round(0);
  std::uint32_t rounds = opt.reuse_shared_projections ? 1 : experts, next_round = 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;
  if (opt.batch_gathers && lead.has_vq()) {
    std::vector<std::uint32_t> tokens;
    for (std::uint32_t e = 0; e < experts; ++e) tokens.push_back(lead.tokens_of(e));
    groups = gather_groups(tokens, experts_per_call);
  } else {
    for (std::uint32_t e = 0; e < experts; ++e) groups.push_back({e, 1});
  }
  // The routed loads. By default all of them right after routing, every expert's J_e and C_e, then every expert's
  // W_down: the DMA queues issue them as soon as the addresses are known, W_down's descriptors from the hardware
  // DGE, J_e's and C_e's from GpSimd (DecodeContext::private_dge), whose queue holds them ahead of the first
  // gather. When W_down's descriptors are GpSimd work too (--routed-swdge, a core without hardware DGE) the
  // scheduler interleaves the loads with the gathers as a kernel that prefetches one iteration ahead: a group's
  // J_e and C_e one group ahead of its gathers (the next group's before this group's gathers), its W_down right
  // after them.
  const bool interleave = lead.interleaves_loads();
  auto load_private = [&](std::size_t g) {
    if (!interleave || g >= groups.size()) return;
    for (std::uint32_t e = groups[g].first; e < groups[g].first + groups[g].second; ++e)
      each([&](CardanCore& c) { c.load_private(e); });
  };
  if (interleave) {
    each([](CardanCore& c) { c.prepare_private(); });
    load_private(0);
  } else {
    each([&](CardanCore& c) {
      c.prepare_private();
      for (std::uint32_t e = 0; e < c.experts(); ++e) c.load_private(e);
      for (std::uint32_t e = 0; e < c.experts(); ++e) c.load_down(e);
    });
  }
  // The expert loop as the compiler's scheduler lays it out, software-pipelined: by one expert (expert e's head
  // is issued before expert e-1's tail, so the exchange and the φ chain of e-1 run while the engines work on e),
  // or with exchanges per gather group by one group (a group's heads and their one send, then the previous
  // group's tails; on GpSimd's DMA the send goes with those tails, after the next group's gathers).
  auto send_group = [&](std::size_t g) {
    each([&](CardanCore& c) { c.send_group_partials(groups[g].first, groups[g].second, "g" + std::to_string(g), cores); });
  };
  auto group_tails = [&](std::size_t g) {
    if (sends_behind) send_group(g);
    for (std::uint32_t e = groups[g].first; e < groups[g].first + groups[g].second; ++e) tail(e);
  };
  std::optional<std::uint32_t> waiting;
  std::optional<std::size_t> waiting_group;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto [first, count] = groups[g];
    load_private(g + 1);
    // The rounds of the group's experts and one expert beyond it.
    while (next_round < std::min(rounds, first + count + 1)) shared_round(next_round++);
    std::string name = opt.batch_gathers ? "g" + std::to_string(g) : "e" + std::to_string(first);
    each([&](CardanCore& c) { c.gather(first, count, name); });
    if (interleave)
      for (std::uint32_t e = first; e < first + count; ++e) each([&](CardanCore& c) { c.load_down(e); });
    if (group_exchange) {
      for (std::uint32_t e = first; e < first + count; ++e) head(e);
      if (!sends_behind) send_group(g);
      if (waiting_group) group_tails(*waiting_group);
      waiting_group = g;
      continue;
    }
    for (std::uint32_t e = first; e < first + count; ++e) {
      head(e);
      if (waiting) tail(*waiting);
      waiting = e;
    }
  }
  if (waiting_group) group_tails(*waiting_group);
  if (waiting) tail(*waiting);
}

}  // namespace

void cardan_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  std::vector<CardanCore> cores;
  cores.reserve(ctx.lnc);
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) cores.emplace_back(ctx, c, in, combiners[c]);
  if (cores.empty()) return;
  if (cores.front().splits_h()) {
    std::vector<CardanCore*> all;
    for (CardanCore& c : cores) all.push_back(&c);
    run_lane(all, cores, ctx.options, experts_per_gather_call(ctx.model.top_k));
    return;
  }
  for (CardanCore& c : cores) run_lane({&c}, cores, ctx.options, experts_per_gather_call(ctx.model.top_k));
}

}  // namespace stasim
