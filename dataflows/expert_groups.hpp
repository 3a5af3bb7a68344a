// The routed work of one decode step, split over the physical cores of a rank as nki-library's MoE decode
// kernels split it (core/moe/moe_tkg/selective_expert_impl.py, all_expert_impl.py):
// - selective mode, one token: the cores split H (each loads its H-contiguous half of every activated expert;
//   the partial gate/up sums are exchanged);
// - selective mode, several tokens: the cores split the tokens (core 0 the first T/2, core 1 the rest), each
//   runs its tokens' routes over the full H (`shard_on_T`; the kernel falls back to H when H·I >= 3072·1536);
// - all-experts mode, only on request (`--all-experts`): every expert once over all T tokens, H split;
// - on request (`--split-top-k`), the MX selective kernel's split (selective_expert_mx_impl.py, shard_on_K):
//   every token on every core, core c taking the k-th experts c·k/cores to (c+1)·k/cores − 1, each over all of
//   H; the cores' outputs are partial sums over experts, added once at the end.
// The selective kernel loops over (token, k), each route loading its expert's weights, so a step reads an expert
// once per token routed to it: dense, w4a8 and, by default, the hybrid (loop_items). `--group-routes` makes the
// hybrid share an expert between the tokens of a core instead (J_e, C_e and W_down once, token-vector gathers):
// the groups, one per distinct expert of the core, with its tokens.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/routing.hpp"

namespace stasim {

enum class ShardOn : std::uint8_t { hidden, tokens, top_k };
// "hidden", "tokens" or "top_k" (the `experts.cores_split` of a run's JSON).
const char* to_string(ShardOn shard);

struct ExpertGroup {
  std::int32_t expert = 0;
  std::uint32_t tokens = 0;  // T_e: this core's tokens routed to the expert (all of the core's in all-experts mode)
};

// One route of the selective loop: token `token` (index in the step) picks group `group` of its core.
struct Route {
  std::uint32_t token = 0;
  std::uint32_t group = 0;
};

struct CoreExperts {
  std::uint32_t first_token = 0;  // the core's tokens: [first_token, first_token + tokens)
  std::uint32_t tokens = 0;
  std::vector<ExpertGroup> groups;  // distinct experts of the core's tokens, in the order the loop first meets them
  std::vector<Route> routes;        // (token, k) in the kernel's loop order (empty in all-experts mode)
};

struct ExpertGroups {
  ShardOn shard = ShardOn::hidden;
  bool all_experts = false;
  std::uint32_t step_tokens = 0;   // B
  std::uint32_t distinct = 0;      // distinct experts of the whole step
  std::vector<CoreExperts> cores;  // one per physical core of the rank
  std::vector<ExpertGroup> step;   // the step's distinct experts with all their tokens (a batched-matmul lowering)
  // Experts loaded per core per MoE layer (routes for a (token, expert) loop, groups for a shared-expert loop).
  std::uint32_t size() const { return distinct; }
};

struct ShardingInputs {
  std::uint32_t cores = 2;
  std::uint64_t hidden = 0;             // H
  std::uint64_t intermediate_rank = 0;  // I per rank (the kernel's I)
  bool all_experts = false;
  bool split_top_k = false;  // `--split-top-k`: each core takes top_k / cores of every token's experts
};

// Splits a step's routing over the cores. Throws InputError when all-experts mode is asked of a routing that
// names no expert, or the top-k split of a top-k the cores do not divide.
ExpertGroups group_experts(const RoutingTrace& trace, const ShardingInputs& in);

// The items of a core's expert loop for a dataflow that can share an expert between tokens (the hybrid): one per
// (token, k) route in the selective kernel's loop order, each loading its expert for its one token (T_e = 1), or
// with `group` one per distinct expert with all the core's tokens routed to it (its loads once, T_e tokens per
// gather index and down matmul). All-experts mode has no routes: its groups.
std::vector<ExpertGroup> loop_items(const CoreExperts& core, bool group);

// The kernel's choice (selective_expert_impl.py): tokens are split unless there is one token or the
// projection is large (H·I >= 3072·1536, NKL-1013); all-experts mode always splits H; the top-k split when asked.
ShardOn choose_shard(std::uint32_t tokens, const ShardingInputs& in);

}  // namespace stasim
