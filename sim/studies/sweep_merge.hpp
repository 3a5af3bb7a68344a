// Joins sweep outputs (the parts of a sharded sweep) into the table the unsharded sweep writes, and finds what
// is wrong with the set of parts: parts of different grids (their .meta.json fingerprints differ, or their rows
// give one point two keys), a point in several parts with different results, and grid points in no part.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/studies/sweep_fingerprint.hpp"
#include "sim/studies/sweep_table.hpp"

namespace stasim {

struct SweepMerge {
  std::vector<SweepRow> rows;         // in grid order, comparison columns filled in (finalize)
  std::optional<SweepGridInfo> grid;  // the grid the parts record (none of them: nullopt), as one whole
  std::size_t part_shards = 1;        // the --shard count the parts record (1: unknown or unsharded)
  std::size_t duplicates = 0;         // rows found in more than one place, identical, kept once
  // Grid points in no part: every index below grid->points without a row, or without a recorded grid the gaps
  // below the largest index seen (points past it cannot be known).
  std::vector<std::size_t> missing;
  // Parts without a .meta.json: their grid cannot be checked against the others' (merge refuses them unless
  // --allow-unverified; the merged file then records no grid).
  std::vector<std::string> unverified;
};

// Reads the parts (each path's rows and its PATH.meta.json). InputError naming the file for a .meta.json that is
// cut, corrupt or lacks its fields, or that another stasim version wrote; the two files for parts of different grids, the two places for a point with two different rows, and file:line for a corrupt part.
SweepMerge merge_sweep_parts(const std::vector<std::string>& paths);

// Points for a message: "points 4, 17, 30 and 12 more"; with `shards` > 1 grouped by shard (i % shards) of a
// grid of `total` points: "shard 1/2 (all 26 of its 26 points: 1, 3, 5, 7, 9 and 21 more)".
std::string describe_points(const std::vector<std::size_t>& points, std::size_t shards, std::size_t total);

}  // namespace stasim
