// moe_align_block_size as route-blocks.md defines it: routes grouped by expert, each expert padded to a multiple
// of the block size with sentinels, one owner expert per block. Counts, padding and expert ids depend only on
// the routing; the order inside an expert is native (the upstream kernel's own order: deterministic on its
// small-batch path, history-dependent on its large path, where a seed stands for the history), canonical, or an
// injected plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/routing.hpp"

namespace stasim {

enum class AlignmentOrder { native, canonical, injected };

// Which of upstream's two kernels aligns a routing (vLLM csrc/moe/moe_align_sum_kernels.cu, host function
// moe_align_block_size, commit 1377b4e0; 00e6fb6d agrees): the single-block small-batch kernel when there are
// fewer than 1024 routes and at most 64 experts, the atomic counting + sort kernels otherwise.
enum class AlignmentPath { small_batch, large_batch };

struct AlignmentPathChoice {
  AlignmentPath path = AlignmentPath::large_batch;
  std::int64_t threads = 0;  // small path: counting threads max(E, 32), thread i takes routes i, i + threads, ...
};

AlignmentPathChoice alignment_path(std::int64_t routes, std::int64_t experts);
const char* path_name(AlignmentPath path);

struct Alignment {
  AlignmentOrder order = AlignmentOrder::canonical;
  AlignmentPathChoice path;  // the upstream kernel this routing takes (the native order follows it)
  std::uint64_t seed = 0;    // the history a native order stands for; 0 unless native on the large path
  std::int64_t block_size = 0;
  std::int64_t sentinel = 0;  // M*k: not a valid route id
  std::int64_t capacity = 0;  // rows of the kernel's buffer
  std::int64_t num_tokens_post_padded = 0;
  std::vector<std::int64_t> rows;         // route id per aligned row (sentinel for padding), post-padded length
  std::vector<std::int32_t> expert_ids;   // owner per block of the whole buffer, -1 for unused blocks
  std::vector<std::int64_t> expert_start; // per expert: first aligned row of its range
  std::vector<std::int64_t> expert_count; // per expert: valid routes

  // P, the "parallel" block count the GEMM partition sees.
  std::int64_t blocks() const { return num_tokens_post_padded / block_size; }
  // The kernel's sorted_token_ids: rows followed by sentinels up to the capacity.
  std::vector<std::int64_t> buffer() const;
};

// The reference kernel's choice: the first b in {8, 16, 32, 48, 64} with routes / E / b < 0.9, else 64.
std::int64_t reference_block_size(std::int64_t routes, std::int64_t experts);
// M*k + E*(b-1), capped at M*k*b when M*k < E.
std::int64_t alignment_capacity(std::int64_t routes, std::int64_t experts, std::int64_t block_size);

// Native on the small path: inside each expert, thread (r mod threads) order, each thread's routes ascending,
// threads ascending; the seed plays no part. Native on the large path: a permutation drawn from `seed`.
// Canonical: by route id.
Alignment align_routes(const RoutingTrace& trace, std::int64_t block_size, AlignmentOrder order,
                       std::uint64_t seed = 0);
// Replays a plan (route id per aligned row, sentinel = M*k for padding). The plan must fit the routing: every
// valid route exactly once, inside its own expert's range; otherwise an InputError naming the row.
Alignment align_with_plan(const RoutingTrace& trace, std::int64_t block_size, const std::vector<std::int64_t>& plan);

// B(e, j): the valid routes of expert e's j-th block, sorted; the fingerprint lists them in block order, so
// it ignores order inside a block and changes when a route crosses a block boundary.
struct BlockMembership {
  std::int32_t expert = 0;
  std::int64_t index_in_expert = 0;  // j
  std::int64_t block = 0;            // global block index
  std::vector<std::int64_t> routes;

  bool operator==(const BlockMembership& other) const {
    return expert == other.expert && index_in_expert == other.index_in_expert && routes == other.routes;
  }
  bool operator!=(const BlockMembership& other) const { return !(*this == other); }
};
using MembershipFingerprint = std::vector<BlockMembership>;

MembershipFingerprint membership_fingerprint(const Alignment& alignment);
// "e:j:r,r,r;" per block: a stable text form, hashed for display.
std::string fingerprint_text(const MembershipFingerprint& fingerprint);

const char* order_name(AlignmentOrder order);

}  // namespace stasim
