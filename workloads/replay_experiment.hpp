// The six-cell experiment of route-blocks.md on a seeded synthetic fixture: two native alignment histories of
// one fixed input, replayed, permuted, exchanged, re-gridded and canonicalised. Every verdict is computed by
// comparing SHA-256 hashes of the FP16 surfaces; nothing is asserted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/route_numerics.hpp"

namespace stasim {

struct ReplayConfig {
  std::uint64_t fixture_seed = 1;
  std::int64_t tokens = 21;  // M
  std::int64_t top_k = 8;
  std::int64_t experts = 128;
  std::int64_t block_size = 8;
  std::int64_t target_blocks = 50;  // P the fixture's routing must align to
  std::int64_t hidden = 2048;
  std::int64_t intermediate = 768;
  std::int64_t group_size = 128;
  std::int64_t thread_n = 128;
  std::int64_t thread_k = 64;
  std::int64_t grid = 246;           // has a direct/split boundary in the first GEMM
  std::int64_t no_split_grid = 200;  // has no split tile in the first GEMM
};

// The fixture's routing and the two histories chosen for it. The routing has one expert that spans the last
// direct block and the first split block of the first GEMM; every other expert fits in one block. H0 is the
// first native seed whose boundary membership differs from canonical; H1 the next seed whose membership differs
// from H0's by exactly one exchange across the boundary (and from canonical).
struct ReplayFixture {
  RoutingTrace routing;
  AlignmentPathChoice path;       // upstream's alignment kernel for this routing (always the large-batch one)
  std::int64_t direct_block = 0;  // last direct block of the first GEMM
  std::int64_t split_block = 0;   // first split block
  std::int32_t boundary_expert = 0;
  std::uint64_t h0_seed = 0;
  std::uint64_t h1_seed = 0;
  std::int64_t exchange_direct_route = 0;  // in the direct block under H0, in the split block under H1
  std::int64_t exchange_split_route = 0;   // the reverse
};

// Throws InputError when the routing would take upstream's small-batch alignment path: its native order is
// deterministic, so no two histories exist to compare.
ReplayFixture build_replay_fixture(const ReplayConfig& config);

struct ReplayRow {
  int finding = 0;  // 1..6, the cell
  std::string history;  // H0 or H1
  std::string plan;     // how the alignment was produced
  std::int64_t grid = 0;
  SurfaceHashes hashes;
  std::string verdict;  // the finding this row takes part in, "(FAILED)" appended when it does not hold
};

struct ReplayFinding {
  int number = 0;
  std::string verdict;  // distinct, reproduced, transferred, preserved, collapsed, canonical third
  bool holds = false;
  std::string detail;
};

struct ReplayResult {
  ReplayConfig config;
  ReplayFixture fixture;
  std::vector<ReplayRow> rows;
  std::vector<ReplayFinding> findings;

  bool all_hold() const;
};

ReplayResult run_replay_experiment(const ReplayConfig& config);

}  // namespace stasim
