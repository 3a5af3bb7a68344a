// The route-alignment commands of docs/route-blocks.md as library calls: `stasim align`, `stasim partition` and
// `stasim replay` each hand a request to report_*, which checks it (InputError), computes, prints the command's
// table on `out` and returns the result; *_json gives the document of the command's --json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/alignment.hpp"
#include "workloads/replay_experiment.hpp"
#include "workloads/routing.hpp"
#include "workloads/work_partition.hpp"

namespace stasim {

// InputError "OPTION must be positive, got VALUE" unless value > 0.
void require_positive(const char* option, std::int64_t value);

// ---- align: moe_align_block_size on a routes file or a generated routing -----------------------------------

struct AlignRequest {
  std::string routes;
  bool generate = false;
  RoutingGeneratorConfig generator;
  std::string order = "native";
  std::string plan;  // file of route ids per aligned row: replaces the order
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::int64_t block_size = 0;
  bool block_size_given = false;  // otherwise the reference rule chooses
};

struct RouteAlignment {
  RoutingTrace trace;
  bool block_size_from_rule = false;
  std::int64_t block_size = 0;
  Alignment alignment;
};

// Route ids separated by commas, spaces or newlines; '#' starts a comment line.
std::vector<std::int64_t> read_plan_file(const std::string& path);
// Aligns the request's routing and prints the routing, the alignment path, the block size and one line per block.
RouteAlignment report_alignment(const AlignRequest& request, std::ostream& out);
nlohmann::json alignment_json(const RouteAlignment& result);

// ---- partition: data-parallel waves + stream-K of the MoE GEMM ---------------------------------------------

struct PartitionRequest {
  WorkPartitionConfig config{0, 0, 0, 0, 0, 0, 0, false};
  bool auto_launch = false;  // thread_n, thread_k and the grid by the reference launch rule
  LaunchLimits limits;
  std::int64_t moe_block_size = 8;
  std::int64_t routed_tokens = 0;  // tokens x top-k, for the launch rule's small-problem clause
};

// Chooses the launch (when asked, printing it), partitions and prints the waves and each block's tile classes.
WorkPartition report_partition(PartitionRequest request, std::ostream& out);
nlohmann::json partition_json(const WorkPartition& partition);

// ---- replay: the six-cell experiment -----------------------------------------------------------------------

// Runs the experiment and prints the fixture, one row per cell and each finding (whether it holds or not).
ReplayResult report_replay(const ReplayConfig& config, std::ostream& out);
nlohmann::json replay_json(const ReplayConfig& config, const ReplayResult& result);

}  // namespace stasim
