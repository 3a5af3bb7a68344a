#include "workloads/replay_experiment.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

WorkPartition first_gemm_partition(const ReplayConfig& c, std::int64_t blocks, std::int64_t grid) {
  return partition_work({blocks, 2 * c.intermediate, c.hidden, c.thread_n, c.thread_k, grid, c.group_size, false});
}

WorkPartition second_gemm_partition(const ReplayConfig& c, std::int64_t blocks, std::int64_t grid) {
  return partition_work({blocks, c.hidden, c.intermediate, c.thread_n, c.thread_k, grid, c.group_size, false});
}

template <class T>
void shuffle(std::vector<T>& v, SeededRandom& random) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[random.below(i)]);
}

// Routing with `target_blocks` aligned blocks: target_blocks - 1 experts, of which the one at `boundary_rank`
// in id order takes two full blocks (2b routes) and the rest share the remaining routes, at most b each.
RoutingTrace fixture_routing(const ReplayConfig& c, std::int64_t boundary_rank, SeededRandom& random) {
  const std::int64_t used = c.target_blocks - 1;
  const std::int64_t singles = used - 1;
  const std::int64_t boundary_routes = 2 * c.block_size;
  const std::int64_t single_routes = c.tokens * c.top_k - boundary_routes;
  Problems problems;
  if (used > c.experts || singles < c.top_k)
    problems.add("replay fixture: " + std::to_string(c.target_blocks) + " blocks need " + std::to_string(used) +
                 " experts with at least top_k + 1 of them; have E = " + std::to_string(c.experts));
  if (boundary_routes > c.tokens)
    problems.add("replay fixture: the boundary expert needs 2b = " + std::to_string(boundary_routes) +
                 " tokens, have M = " + std::to_string(c.tokens));
  if (single_routes < singles || single_routes > singles * c.block_size)
    problems.add("replay fixture: " + std::to_string(single_routes) + " routes cannot fill " +
                 std::to_string(singles) + " single-block experts of block size " + std::to_string(c.block_size));
  problems.throw_if_any();

  std::vector<std::int32_t> experts(static_cast<size_t>(c.experts));
  for (size_t e = 0; e < experts.size(); ++e) experts[e] = static_cast<std::int32_t>(e);
  shuffle(experts, random);
  experts.resize(static_cast<size_t>(used));
  std::sort(experts.begin(), experts.end());
  const std::int32_t boundary = experts[static_cast<size_t>(boundary_rank)];
  experts.erase(experts.begin() + boundary_rank);
  shuffle(experts, random);  // the cycle single-block experts are dealt from

  std::vector<std::int64_t> tokens(static_cast<size_t>(c.tokens));
  for (size_t t = 0; t < tokens.size(); ++t) tokens[t] = static_cast<std::int64_t>(t);
  shuffle(tokens, random);
  std::vector<bool> has_boundary(tokens.size(), false);
  for (std::int64_t i = 0; i < boundary_routes; ++i) has_boundary[static_cast<size_t>(tokens[static_cast<size_t>(i)])] = true;

  // Consecutive windows of at most k from a cycle of `singles` >= k distinct experts are distinct within a
  // token, and dealing round the cycle gives each expert ceil or floor of the average count (<= b, checked).
  std::vector<std::vector<std::int64_t>> ids;
  std::vector<std::vector<double>> weights;
  size_t next = 0;
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    std::vector<std::int64_t> row;
    if (has_boundary[static_cast<size_t>(t)]) row.push_back(boundary);
    while (static_cast<std::int64_t>(row.size()) < c.top_k) row.push_back(experts[next++ % experts.size()]);
    shuffle(row, random);
    std::vector<double> w;
    double sum = 0;
    for (std::int64_t s = 0; s < c.top_k; ++s) {
      w.push_back(0.05 + random.unit());
      sum += w.back();
    }
    for (double& x : w) x /= sum;
    ids.push_back(std::move(row));
    weights.push_back(std::move(w));
  }
  return routing_from_rows(ids, weights, c.experts, "replay fixture");
}

std::vector<std::int64_t> block_routes(const Alignment& a, std::int64_t block) {
  std::vector<std::int64_t> routes;
  for (std::int64_t row = block * a.block_size; row < (block + 1) * a.block_size; ++row)
    if (a.rows[static_cast<size_t>(row)] != a.sentinel) routes.push_back(a.rows[static_cast<size_t>(row)]);
  std::sort(routes.begin(), routes.end());
  return routes;
}

std::vector<std::int64_t> only_in_first(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void swap_routes(std::vector<std::int64_t>& plan, std::int64_t x, std::int64_t y) {
  auto px = std::find(plan.begin(), plan.end(), x);
  auto py = std::find(plan.begin(), plan.end(), y);
  std::iter_swap(px, py);
}

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace

bool ReplayResult::all_hold() const {
  return std::all_of(findings.begin(), findings.end(), [](const ReplayFinding& f) { return f.holds; });
}

ReplayFixture build_replay_fixture(const ReplayConfig& c) {
  if (c.target_blocks < 2) throw InputError("replay fixture: target blocks must be at least 2");
  const WorkPartition w13 = first_gemm_partition(c, c.target_blocks, c.grid);
  ReplayFixture f;
  f.split_block = w13.remainder_start_block();
  f.direct_block = f.split_block - 1;
  // The experiment needs a block that is direct on every N-tile next to one that is split on some N-tile.
  bool split_seen = false;
  for (std::int64_t nt = 0; f.split_block < c.target_blocks && nt < w13.n_tiles; ++nt)
    split_seen = split_seen || w13.tile(f.split_block, nt).tile_class == TileClass::split;
  if (f.direct_block < 0 || !split_seen || w13.remainder_start_n_tile() != 0)
    throw InputError("replay: grid " + std::to_string(c.grid) + " gives no direct/split block boundary in the first "
                     "GEMM for " + std::to_string(c.target_blocks) + " blocks");

  f.path = alignment_path(c.tokens * c.top_k, c.experts);
  if (f.path.path == AlignmentPath::small_batch)
    throw InputError("replay: " + std::to_string(c.tokens * c.top_k) + " routes over " + std::to_string(c.experts) +
                     " experts take upstream's small-batch alignment path (fewer than 1024 routes, at most 64 "
                     "experts), whose native order is deterministic: there are no two histories to compare");
  SeededRandom random(c.fixture_seed);
  f.routing = fixture_routing(c, f.direct_block, random);
  const Alignment canonical = align_routes(f.routing, c.block_size, AlignmentOrder::canonical);
  if (canonical.blocks() != c.target_blocks)
    throw SimulationError("replay fixture aligned to " + std::to_string(canonical.blocks()) + " blocks, not " +
                          std::to_string(c.target_blocks));
  f.boundary_expert = canonical.expert_ids[static_cast<size_t>(f.direct_block)];

  const std::vector<std::int64_t> canonical_direct = block_routes(canonical, f.direct_block);
  auto direct_members = [&](std::uint64_t seed) {
    return block_routes(align_routes(f.routing, c.block_size, AlignmentOrder::native, seed), f.direct_block);
  };
  const std::uint64_t search_limit = 1000000;
  std::uint64_t seed = 1;
  while (seed < search_limit && direct_members(seed) == canonical_direct) ++seed;
  f.h0_seed = seed;
  const std::vector<std::int64_t> h0_direct = direct_members(f.h0_seed);
  for (seed = f.h0_seed + 1; seed < search_limit; ++seed) {
    std::vector<std::int64_t> members = direct_members(seed);
    if (members != canonical_direct && only_in_first(h0_direct, members).size() == 1) break;
  }
  if (seed >= search_limit) throw SimulationError("replay fixture: no second history found below seed 1000000");
  f.h1_seed = seed;
  const std::vector<std::int64_t> h1_direct = direct_members(f.h1_seed);
  f.exchange_direct_route = only_in_first(h0_direct, h1_direct).front();
  f.exchange_split_route = only_in_first(h1_direct, h0_direct).front();
  return f;
}

ReplayResult run_replay_experiment(const ReplayConfig& c) {
  ReplayResult result;
  result.config = c;
  result.fixture = build_replay_fixture(c);
  const ReplayFixture& f = result.fixture;
  const SyntheticMoeLayer layer(f.routing, {c.hidden, c.intermediate, c.group_size, c.fixture_seed});
  const std::int64_t P = c.target_blocks;
  const WorkPartition w13_split = first_gemm_partition(c, P, c.grid);
  const WorkPartition w2_split = second_gemm_partition(c, P, c.grid);
  const WorkPartition w13_flat = first_gemm_partition(c, P, c.no_split_grid);
  const WorkPartition w2_flat = second_gemm_partition(c, P, c.no_split_grid);
  if (w13_flat.split_tiles != 0)
    throw InputError("replay: --no-split-grid " + std::to_string(c.no_split_grid) + " still splits " +
                     std::to_string(w13_flat.split_tiles) + " tiles of the first GEMM");

  const Alignment h0 = align_routes(f.routing, c.block_size, AlignmentOrder::native, f.h0_seed);
  const Alignment h1 = align_routes(f.routing, c.block_size, AlignmentOrder::native, f.h1_seed);
  const std::string direct_name = "block " + std::to_string(f.direct_block);
  const std::string split_name = "block " + std::to_string(f.split_block);
  auto with_plan = [&](std::vector<std::int64_t> plan) { return align_with_plan(f.routing, c.block_size, plan); };
  auto swapped_in_block = [&](const Alignment& a, std::int64_t block, std::string& label) {
    std::vector<std::int64_t> members = block_routes(a, block);
    std::vector<std::int64_t> plan = a.rows;
    swap_routes(plan, members[0], members[1]);
    label = "swap routes " + std::to_string(members[0]) + "<->" + std::to_string(members[1]) + " inside block " +
            std::to_string(block);
    return with_plan(plan);
  };
  auto exchanged = [&](const Alignment& a) {
    std::vector<std::int64_t> plan = a.rows;
    swap_routes(plan, f.exchange_direct_route, f.exchange_split_route);
    return with_plan(plan);
  };
  const std::string exchange_label = "exchange routes " + std::to_string(f.exchange_direct_route) + "<->" +
                                     std::to_string(f.exchange_split_route) + " across " + direct_name + "|" +
                                     split_name;

  std::vector<LayerRun> runs;
  std::vector<ReplayRow> rows;
  auto add = [&](int finding, const char* history, std::string plan, Alignment a, bool flat) {
    runs.push_back({std::move(a), flat ? w13_flat : w13_split, flat ? w2_flat : w2_split});
    rows.push_back({finding, history, std::move(plan), flat ? c.no_split_grid : c.grid, {}, ""});
  };
  std::string swap0, swap1;
  const std::string native0 = "native seed " + std::to_string(f.h0_seed) + " (" + path_name(f.path.path) + ")";
  const std::string native1 = "native seed " + std::to_string(f.h1_seed) + " (" + path_name(f.path.path) + ")";
  add(1, "H0", native0, h0, false);
  add(1, "H1", native1, h1, false);
  add(2, "H0", "inject own plan", with_plan(h0.rows), false);
  add(2, "H1", "inject own plan", with_plan(h1.rows), false);
  add(2, "H0", "inject H1 plan", with_plan(h1.rows), false);
  add(2, "H1", "inject H0 plan", with_plan(h0.rows), false);
  Alignment s0 = swapped_in_block(h0, f.split_block, swap0);
  Alignment s1 = swapped_in_block(h1, f.direct_block, swap1);
  add(3, "H0", swap0, s0, false);
  add(3, "H1", swap1, s1, false);
  add(4, "H0", exchange_label, exchanged(h0), false);
  add(4, "H1", exchange_label, exchanged(h1), false);
  add(5, "H0", native0, h0, true);
  add(5, "H1", native1, h1, true);
  add(6, "H0", "canonical", align_routes(f.routing, c.block_size, AlignmentOrder::canonical), false);
  add(6, "H1", "canonical", align_routes(f.routing, c.block_size, AlignmentOrder::canonical), false);

  const std::vector<LayerSurfaces> surfaces = evaluate_layer(layer, runs);
  for (size_t i = 0; i < rows.size(); ++i) rows[i].hashes = surfaces[i].hashes();
  result.rows = rows;
  const SurfaceHashes& n0 = rows[0].hashes;
  const SurfaceHashes& n1 = rows[1].hashes;

  auto finding = [&](int number, const char* verdict, bool holds, std::string detail) {
    result.findings.push_back({number, verdict, holds, std::move(detail)});
  };
  const bool all_differ = n0.w13 != n1.w13 && n0.activation != n1.activation && n0.routed_w2 != n1.routed_w2 &&
                          n0.final_output != n1.final_output;
  const std::string path = std::string(path_name(f.path.path)) + " alignment path";
  finding(1, "distinct", all_differ,
          "H0 and H1 (native, " + path + ") differ at " +
              std::string(all_differ ? "all four surfaces" : "fewer than four surfaces") +
              " (W13 " + short_hash(n0.w13) + " vs " + short_hash(n1.w13) + ")");
  const bool reproduced = rows[2].hashes == n0 && rows[3].hashes == n1;
  const bool transferred = rows[4].hashes == n1 && rows[5].hashes == n0;
  finding(2, "reproduced", reproduced, "each history's own plan gives its native hashes");
  finding(2, "transferred", transferred, "the opposite plan gives the opposite history's hashes on all surfaces");
  finding(3, "preserved", rows[6].hashes == n0 && rows[7].hashes == n1,
          "a swap inside " + split_name + " (split) and inside " + direct_name + " (direct) keeps every hash");
  finding(4, "transferred", rows[8].hashes == n1 && rows[9].hashes == n0,
          "one exchange across " + direct_name + " (direct) | " + split_name + " (split) turns each history into "
          "the other");
  const SurfaceHashes& g0 = rows[10].hashes;
  const SurfaceHashes& g1 = rows[11].hashes;
  finding(5, "collapsed", g0.w13 == g1.w13,
          "grid " + std::to_string(c.no_split_grid) + " (native, " + path + "): first-GEMM outputs " +
              (g0.w13 == g1.w13 ? "bitwise equal" : "differ") + " across histories; all surfaces " +
              (g0 == g1 ? "equal" : "not all equal"));
  const SurfaceHashes& k0 = rows[12].hashes;
  const SurfaceHashes& k1 = rows[13].hashes;
  finding(6, "canonical third", k0 == k1 && k0 != n0 && k0 != n1,
          "canonical gives one result for both histories" + std::string(k0 != n0 && k0 != n1 ? ", unlike either" : ", equal to a") +
              " native result");
  // Rows 2i and 2i+1 belong to one finding, in the order the findings were recorded.
  for (size_t i = 0; i < result.rows.size(); ++i) {
    const ReplayFinding& f = result.findings[i / 2];
    result.rows[i].verdict = f.verdict + (f.holds ? "" : " (FAILED)");
  }
  return result;
}

}  // namespace stasim
