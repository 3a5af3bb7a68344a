// The public header for the route-alignment studies of docs/route-blocks.md, as `stasim align`, `partition`
// and `replay` run them: fill a request, call report_* (which checks it, computes and prints the command's
// table), and take the --json document from *_json.
//
//   stasim::AlignRequest request;                  // a routing: a routes file, or generate = true
//   request.generate = true;
//   stasim::RouteAlignment aligned = stasim::report_alignment(request, std::cout);
//   nlohmann::json doc = stasim::alignment_json(aligned);
//
// The models underneath (workloads/): alignment (moe_align_block_size, membership fingerprints), routing traces,
// the GEMM's work partition and launch rule, the six-cell replay experiment; sha256_hex hashes a text.
#pragma once

#include "sim/studies/route_block_report.hpp"
#include "workloads/alignment.hpp"
#include "workloads/replay_experiment.hpp"
#include "workloads/routing.hpp"
#include "workloads/sha256.hpp"
#include "workloads/work_partition.hpp"
