#include "dataflows/expert_kernel.hpp"

#include <algorithm>

namespace stasim {
namespace {

std::uint32_t projections(bool gated) { return gated ? 2 : 1; }

}  // namespace

ExpertSlice expert_slice(const DecodeContext& ctx, ShardOn shard) {
  ExpertSlice s;
  s.i_cols = static_cast<std::uint32_t>(ctx.model.intermediate_per_rank(ctx.deployment.tp));
  bool split_h = shard == ShardOn::hidden && ctx.lnc > 1;
  // moe_block_tkg requires H divisible by 128 x lnc; the builders keep a remainder on the last core instead.
  s.h_rows = split_h ? ctx.share(ctx.hidden, 0) : ctx.hidden;
  s.h_cols = s.h_rows;
  s.partial = split_h;
  return s;
}

std::uint32_t gate_up_shard_tiles(const ExpertSlice& slice, const PsumPlan& plan, bool gated) {
  // mlp_tkg: at most 8 banks of 128 columns per loop; gate and up each take a bank per tile (with explicit
  // addresses the same banks, so the shard is as wide as the pool: max_I_shard_size = 128 x 8).
  std::uint32_t pool = plan.banks(PsumRole::gate_up);
  std::uint32_t per_tile = plan.explicit_addresses() ? 1 : projections(gated);
  std::uint32_t fit = std::max<std::uint32_t>(1, std::min<std::uint32_t>(8, pool / per_tile));
  return std::min(fit, static_cast<std::uint32_t>(ceil_div(slice.i_cols, 128)));
}

std::uint64_t expert_tile_bytes(const ExpertSlice& slice, std::uint32_t rows_per_load, std::uint32_t shard_cols, bool gated) {
  std::uint64_t gate_up = ceil_div(std::uint64_t(std::min(rows_per_load, slice.h_rows)) * projections(gated) * shard_cols * 2, 128);
  std::uint64_t down = std::uint64_t(slice.h_cols) * 2;  // one row of I per partition
  return std::max(gate_up, down);
}

std::uint32_t gate_up_rows_per_load(const ExpertSlice& slice, std::uint32_t shard_cols, bool gated, std::uint64_t budget) {
  // mlp_tkg_constants.calculate_gate_up_tiles: HTile 2048, falling back to 512 when the tiles do not fit.
  for (std::uint32_t rows : {2048u, 512u, 128u}) {
    std::uint64_t per_expert = ceil_div(std::min(rows, slice.h_rows) * 1ull * projections(gated) * shard_cols * 2, 128) +
                               std::uint64_t(slice.h_cols) * 2;
    if (2 * per_expert <= budget) return rows;
  }
  return 128;
}

ExpertLoads load_expert(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, std::uint32_t shard_tiles,
                        std::uint32_t rows_per_load, WeightRing& ring, const Deps& deps, const std::string& name) {
  ExpertLoads out;
  const bool gated = ctx.model.gated;
  const std::uint32_t shard_cols = shard_tiles * 128;
  std::uint32_t n = 0;
  for (std::uint32_t c0 = 0; c0 < slice.i_cols; c0 += shard_cols) {
    std::uint32_t cols = std::min(shard_cols, slice.i_cols - c0);
    std::vector<OpId> tiles;
    for (std::uint32_t r0 = 0; r0 < slice.h_rows; r0 += rows_per_load) {
      std::uint32_t rows = std::min(rows_per_load, slice.h_rows - r0);
      // NxDI's per-rank [E, H, 2, I]: a row of H holds gate then up, I elements each. nki-library's selective
      // kernel views the expert's gate and its up weights apart (selective_expert_impl selects GATE and UP of
      // dim 1) and loads each [HTile, I] tile with partition p taking HTile/128 adjacent rows, so a partition's
      // bytes arrive in runs of one projection's I columns: rows/128 x 2 runs of I x 2 B per partition (e.g.
      // Qwen3 per core: 1024 rows x 2 projections = 2048 descriptors of 384 B per expert). Fusing the two
      // views into one copy of 2 x I runs is a hand optimisation outside the library ("halves descriptor
      // count", a public Trainium 3 megakernel; --fused-gate-up-loads); docs/hardware-model.md DMA. One transfer
      // here carries both projections' runs (the kernel's two copies go to different queues and share the same
      // DMA engines). Without gating, or with the fused view, a row's elements are one run when the shard spans I.
      const bool apart = gated && !ctx.options.fused_gate_up_loads;
      std::uint32_t run = apart || cols != slice.i_cols ? cols * 2 : 0;
      tiles.push_back(ring.load(std::uint64_t(rows) * projections(gated) * cols * 2, std::min<std::uint32_t>(128, rows), run, deps,
                                "gate_up", label(core, idx(name + ".load_gate_up", n++)), ctx.routed_dge()));
    }
    out.gate_up.push_back(std::move(tiles));
  }
  out.down = load_down_tiles(ctx, core, slice.i_cols, slice.h_cols, ring, deps, name);
  return out;
}

DownWeights load_down_tiles(DecodeContext& ctx, std::uint32_t core, std::uint32_t i_cols, std::uint32_t h_cols,
                            WeightRing& ring, const Deps& deps, const std::string& name) {
  DownWeights out;
  // [E, I, H]: a row of I is H contiguous elements; this core's H columns are one run of h_cols.
  out.rows_per_load = 128;
  out.ring = &ring;
  for (std::uint32_t r0 = 0; r0 < i_cols; r0 += 128) {
    std::uint32_t rows = std::min<std::uint32_t>(128, i_cols - r0);
    std::uint32_t run = h_cols == ctx.hidden ? 0 : h_cols * 2;
    out.loads.push_back(ring.load(std::uint64_t(rows) * h_cols * 2, rows, run, deps, "down",
                                  label(core, idx(name + ".load_down", r0 / 128)), ctx.routed_dge()));
  }
  return out;
}

std::vector<GateUpTiles> gate_up_tiles(DecodeContext& ctx, std::uint32_t core, const ExpertSlice& slice, std::uint32_t T,
                                       OpId hidden, const ExpertLoads& loads, std::uint32_t shard_tiles,
                                       WeightRing& ring, PsumPlan& plan, const std::string& name) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  const bool gated = ctx.model.gated;
  const std::uint32_t h_tiles = static_cast<std::uint32_t>(ceil_div(slice.h_rows, 128));
  // Matmul labels count over all of the expert's I tiles, so the column shards' matmuls are named apart.
  const std::uint32_t all_i_tiles = static_cast<std::uint32_t>(ceil_div(slice.i_cols, 128));
  std::vector<GateUpTiles> out;
  for (std::size_t s = 0; s < loads.gate_up.size(); ++s) {
    GateUpTiles t;
    t.first_col = static_cast<std::uint32_t>(s) * shard_tiles * 128;
    t.cols = std::min(shard_tiles * 128, slice.i_cols - t.first_col);
    const std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(t.cols, 128));
    const std::vector<OpId>& tile_loads = loads.gate_up[s];
    const std::uint32_t rows_per_load = static_cast<std::uint32_t>(ceil_div(h_tiles, tile_loads.size())) * 128;
    for (std::uint32_t p = 0; p < projections(gated); ++p) {
      bool is_gate = gated && p == 0;
      std::string pn = name + (is_gate ? ".gate" : ".up");
      std::vector<Accumulator> accs;
      for (std::uint32_t it = 0; it < i_tiles; ++it)
        accs.push_back(plan.open_at(PsumRole::gate_up, it, label(core, idx(pn + ".acc", t.first_col / 128 + it))));
      std::vector<OpId> last(i_tiles, kNoOp);
      // H outer, I inner (gate_up_projection_lhs_rhs_swap): each loaded row tile feeds every I tile.
      for (std::uint32_t ht = 0; ht < h_tiles; ++ht) {
        std::size_t load = std::min<std::size_t>(ht * 128 / rows_per_load, tile_loads.size() - 1);
        for (std::uint32_t it = 0; it < i_tiles; ++it) {
          Deps deps;
          if (it == 0 && ht * 128 % rows_per_load == 0) deps = {hidden, tile_loads[load]};
          last[it] = b.matmul(c, std::min<std::uint32_t>(128, slice.h_rows - ht * 128),
                              std::min<std::uint32_t>(128, t.cols - it * 128), T, true, accs[it], deps, "gate_up",
                              label(core, idx(pn + ".mm", ht * all_i_tiles + t.first_col / 128 + it)));
          ring.read_by(tile_loads[load], last[it]);
        }
      }
      // PSUM to SBUF in FP32 (interleave_copy), one drain per 128-column tile.
      std::vector<OpId>& dst = is_gate ? t.gate : t.up;
      for (std::uint32_t it = 0; it < i_tiles; ++it)
        dst.push_back(b.compute(Engine::vector, OpKind::tensor_copy, c, T, std::min<std::uint32_t>(128, t.cols - it * 128),
                                {last[it]}, "gate_up", label(core, idx(pn + ".drain", t.first_col / 128 + it)), true,
                                &accs[it], Dtype::fp32));
    }
    out.push_back(std::move(t));
  }
  return out;
}

void exchange_partials(DecodeContext& ctx, std::vector<std::vector<GateUpTiles>>& tiles, std::uint32_t T,
                       const std::string& name) {
  KernelBuilder& b = ctx.b;
  const std::uint32_t cores = static_cast<std::uint32_t>(tiles.size());
  if (cores < 2) return;
  const std::size_t shards = tiles[0].size();
  for (std::size_t s = 0; s < shards; ++s) {
    std::uint32_t cols = tiles[0][s].cols;
    std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(cols, 128));
    std::vector<OpId> recv_free(cores, kNoOp);  // per receiving core: its receive buffer is free again
    // Core c adds the partials the other cores sent it (sent[from][to]) to its own gate or up rows.
    auto add_partials = [&](std::uint32_t c, bool gate, const std::vector<std::vector<OpId>>& sent) {
      std::vector<OpId>& mine = gate ? tiles[c][s].gate : tiles[c][s].up;
      Deps d = mine;
      for (std::uint32_t o = 0; o < cores; ++o)
        if (o != c) d.push_back(sent[o][c]);
      OpId sum = b.compute(Engine::vector, OpKind::tensor_tensor, static_cast<std::uint8_t>(c), i_tiles * T,
                           std::min<std::uint32_t>(128, cols), d, "gate_up",
                           label(c, idx(name + (gate ? ".gate" : ".up") + ".partial_sum", s)), false, nullptr, Dtype::fp32);
      mine.assign(mine.size(), sum);
      return sum;
    };
    if (ctx.options.fused_gate_up_exchange && !tiles[0][s].gate.empty()) {
      // One sendrecv of both partials: [128 of I, 2 x I/128 x T] FP32, the gate and up sums after it.
      std::vector<std::vector<OpId>> sent(cores, std::vector<OpId>(cores, kNoOp));
      std::vector<Deps> side(cores);  // a core's side of the exchange: its gate and up partials
      for (std::uint32_t c = 0; c < cores; ++c) {
        side[c] = tiles[c][s].gate;
        side[c].insert(side[c].end(), tiles[c][s].up.begin(), tiles[c][s].up.end());
      }
      for (std::uint32_t c = 0; c < cores; ++c)
        for (std::uint32_t o = 0; o < cores; ++o) {
          if (o == c) continue;
          sent[c][o] = ctx.exchange(c, std::uint64_t(cols) * T * 4 * 2, std::min<std::uint32_t>(128, cols), o, side[c],
                                    side[o], "gate_up", label(c, idx(name + ".gate_up.to_core" + std::to_string(o), s)));
        }
      for (std::uint32_t c = 0; c < cores; ++c)
        for (bool gate : {true, false}) add_partials(c, gate, sent);
      continue;
    }
    for (bool gate : {true, false}) {
      if (gate && tiles[0][s].gate.empty()) continue;
      // Every core sends its [128 of I, I/128 x T] FP32 partial (all its drains) to the others.
      std::vector<std::vector<OpId>> sent(cores, std::vector<OpId>(cores, kNoOp));
      for (std::uint32_t c = 0; c < cores; ++c) {
        const std::vector<OpId>& mine = gate ? tiles[c][s].gate : tiles[c][s].up;
        for (std::uint32_t o = 0; o < cores; ++o) {
          if (o == c) continue;
          Deps d = mine;
          d.push_back(recv_free[o]);
          const Deps& peer = gate ? tiles[o][s].gate : tiles[o][s].up;
          sent[c][o] = ctx.exchange(c, std::uint64_t(cols) * T * 4, std::min<std::uint32_t>(128, cols), o, d, peer, "gate_up",
                                    label(c, idx(name + (gate ? ".gate" : ".up") + ".to_core" + std::to_string(o), s)));
        }
      }
      for (std::uint32_t c = 0; c < cores; ++c) recv_free[c] = add_partials(c, gate, sent);
    }
  }
}

OpId gate_up_product(DecodeContext& ctx, std::uint32_t core, const std::vector<GateUpTiles>& tiles, std::uint32_t T,
                     bool scale, const std::string& name) {
  KernelBuilder& b = ctx.b;
  const std::uint8_t c = static_cast<std::uint8_t>(core);
  Deps products;
  for (std::size_t s = 0; s < tiles.size(); ++s) {
    const GateUpTiles& t = tiles[s];
    std::uint32_t i_tiles = static_cast<std::uint32_t>(ceil_div(t.cols, 128));
    std::uint32_t parts = std::min<std::uint32_t>(128, t.cols);
    const std::vector<OpId>& act_in = t.gate.empty() ? t.up : t.gate;
    // One instruction per shard over [128, I/128 x T] (the kernel's whole-buffer activation and multiply).
    Deps d(act_in.begin(), act_in.end());
    OpId phi = b.compute(Engine::scalar, OpKind::activation, c, i_tiles * T, parts, d, "act",
                         label(core, idx(name + ".phi", s)), false, nullptr, Dtype::fp32);
    if (t.gate.empty()) {
      products.push_back(phi);
      continue;
    }
    Deps m(t.up.begin(), t.up.end());
    m.push_back(phi);
    products.push_back(b.compute(Engine::vector, OpKind::tensor_tensor, c, i_tiles * T, parts, m, "act",
                                 label(core, idx(name + ".mul", s)), false, nullptr, Dtype::fp32));
  }
  OpId p = products.size() == 1 ? products[0]
                                 : b.compute(Engine::vector, OpKind::tensor_copy, c, 1, 1, products, "act",
                                             label(core, name + ".p_ready"));
  if (!scale) return p;
  // The running sum in PSUM cannot scale y_e after the matmul: p is multiplied by a_e before it.
  std::uint32_t i_tiles = 0;
  for (const GateUpTiles& t : tiles) i_tiles += static_cast<std::uint32_t>(ceil_div(t.cols, 128));
  return b.compute(Engine::vector, OpKind::tensor_scalar, c, i_tiles * T, 128, {p}, "act", label(core, name + ".p_scale"));
}

}  // namespace stasim
