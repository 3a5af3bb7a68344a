// The dense megakernel's routed experts as nki-library's selective-expert MoE decode kernel runs them
// (core/moe/moe_tkg/selective_expert_impl.py): a loop over (token, k), each route loading its expert's
// gate/up and down weights by a dynamic address known once the router's top-k is, through two experts' worth
// of weight tiles (interleave degree 2), then gate/up, φ ⊙ up, down, scaled by the affinity and added into the
// core's output. One token: the cores split H and exchange partial gate/up sums; several tokens: the cores
// split the tokens. `--all-experts` runs all_expert_impl.py instead: every expert once over all tokens.
#include <memory>
#include <optional>

#include "dataflows/expert_kernel.hpp"
#include "dataflows/moe_block.hpp"
#include "dataflows/sbuf_budget.hpp"

namespace stasim {
namespace {

// One core's weight stream and PSUM plan for the expert loop.
struct ExpertStream {
  PsumPlan* plan = nullptr;
  std::unique_ptr<WeightRing> ring;
  std::uint32_t shard_tiles = 1, rows_per_load = 2048;
};

ExpertStream make_stream(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, DownCombiner& combiner) {
  ExpertStream s;
  PsumRoles roles;
  roles.layout = ctx.options.down.stationary == Stationary::activation ? 1 : 0;
  roles.explicit_addresses = ctx.options.explicit_psum;
  s.plan = &combiner.plan(roles);
  s.shard_tiles = gate_up_shard_tiles(slice, *s.plan, ctx.model.gated);
  std::uint64_t budget = static_cast<std::uint64_t>(ctx.hw.sbuf.usable_bytes_per_partition() * kExpertWeightShare);
  s.rows_per_load = gate_up_rows_per_load(slice, s.shard_tiles * 128, ctx.model.gated, budget);
  std::uint64_t shards = ceil_div(slice.i_cols, s.shard_tiles * 128);
  std::uint64_t per_expert = shards * ceil_div(slice.h_rows, s.rows_per_load) + ceil_div(slice.i_cols, 128);
  // Two experts in flight (sbm interleave degree 2): the next expert's tiles load while this one computes.
  s.ring = std::make_unique<WeightRing>(ctx, core, "experts.w",
                                        expert_tile_bytes(slice, s.rows_per_load, s.shard_tiles * 128, ctx.model.gated),
                                        static_cast<std::uint32_t>(2 * per_expert), kExpertWeightShare);
  return s;
}

}  // namespace

void dense_routed_experts(DecodeContext& ctx, const MoeInputs& in, std::vector<DownCombiner>& combiners) {
  const ExpertGroups& ex = ctx.experts;
  const ExpertSlice slice = expert_slice(ctx, ex.shard);
  if (slice.i_cols == 0) return;
  std::vector<ExpertStream> streams;
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) streams.push_back(make_stream(ctx, c, slice, combiners[c]));

  // One expert's work on `core` over `T` tokens whose first column in the core's output is `column`.
  auto front = [&](std::uint32_t core, std::uint32_t T, const std::string& name) {
    ExpertStream& s = streams[core];
    ExpertLoads loads = load_expert(ctx, core, slice, s.shard_tiles, s.rows_per_load, *s.ring, {in.topk[core]}, name);
    std::vector<GateUpTiles> tiles =
        gate_up_tiles(ctx, core, slice, T, in.normed[core], loads, s.shard_tiles, *s.ring, *s.plan, name);
    return std::make_pair(std::move(loads), std::move(tiles));
  };
  auto back = [&](std::uint32_t core, std::uint32_t T, std::uint32_t column, const ExpertLoads& loads,
                  const std::vector<GateUpTiles>& tiles, const std::string& name) {
    DownCombiner& combiner = combiners[core];
    DownInput d;
    d.i_cols = slice.i_cols;
    d.tokens = T;
    d.token_offset = column;
    d.p_ready = gate_up_product(ctx, core, tiles, T, combiner.wants_scaled_input(), name);
    d.weights = loads.down;
    combiner.add_expert(d, name);
  };

  if (ex.shard == ShardOn::hidden) {
    // Every core runs every item on its share of H; the partial sums meet after gate/up.
    const CoreExperts& work = ex.cores[0];
    std::size_t items = ex.all_experts ? work.groups.size() : work.routes.size();
    struct Item {
      std::string name;
      std::uint32_t T = 1, column = 0;
      std::vector<ExpertLoads> loads;
      std::vector<std::vector<GateUpTiles>> tiles;
    };
    // Software-pipelined by one item, as the compiler's scheduler lays out the unrolled loop (cardan_moe.cpp):
    // item i's loads and gate/up are issued before item i-1's exchange and tail, so the partial sums cross
    // between the cores while the engines work on item i.
    auto finish = [&](Item& it) {
      if (slice.partial) exchange_partials(ctx, it.tiles, it.T, it.name);
      for (std::uint32_t c = 0; c < ctx.lnc; ++c) back(c, it.T, it.column, it.loads[c], it.tiles[c], it.name);
    };
    std::optional<Item> waiting;
    for (std::size_t i = 0; i < items; ++i) {
      Item it;
      it.name = "e" + std::to_string(i);
      it.T = ex.all_experts ? work.tokens : 1;
      it.column = ex.all_experts ? 0 : work.routes[i].token - work.first_token;
      // With explicit PSUM addresses the item's gate/up write the banks the previous item's down projection
      // used, so they follow its tail in program order (the compiler keeps that write-after-write order): no
      // pipelining. Its loads still run ahead in the double-buffered weight ring.
      if (ctx.options.explicit_psum && waiting) {
        finish(*waiting);
        waiting.reset();
      }
      for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
        auto [l, t] = front(c, it.T, it.name);
        it.loads.push_back(std::move(l));
        it.tiles.push_back(std::move(t));
      }
      if (waiting) finish(*waiting);
      waiting = std::move(it);
    }
    if (waiting) finish(*waiting);
    return;
  }
  // Token split: each core its own tokens' routes over the whole H, one token per route.
  for (std::uint32_t c = 0; c < ctx.lnc; ++c) {
    const CoreExperts& work = ex.cores[c];
    for (std::size_t i = 0; i < work.routes.size(); ++i) {
      std::string name = "e" + std::to_string(i);
      auto [loads, tiles] = front(c, 1, name);
      back(c, 1, work.routes[i].token - work.first_token, loads, tiles, name);
    }
  }
}

}  // namespace stasim
