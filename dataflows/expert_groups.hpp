// The routed experts of one decode step and the tokens each serves. Selective mode: the union of the batch's
// activated experts, each loaded once, its tokens grouped with the route alignment of workloads/alignment.hpp
// (reference block size, canonical order) so its padded row count is the token (free) dimension of its matmuls.
// All-experts mode (hardware-facts.md §5: B·k/E >= DEFAULT_SELECTIVE_LOADING_THRESHOLD = 1.0): every expert is
// loaded once and computes all B tokens, the routing applied as an affinity mask.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/routing.hpp"

namespace stasim {

struct ExpertGroup {
  std::int32_t expert = 0;
  std::uint32_t tokens = 0;         // tokens routed to this expert (what its gathers select for)
  std::uint32_t padded_tokens = 0;  // free dimension of its matmuls: tokens rounded up to whole blocks (all B in
                                    // all-experts mode, where the routing is an affinity mask)
};

struct ExpertGroups {
  std::vector<ExpertGroup> groups;  // by expert id
  bool all_experts = false;
  std::int64_t block_size = 0;      // alignment block (selective mode)
  std::uint32_t size() const { return static_cast<std::uint32_t>(groups.size()); }
};

// Groups a step's routing. `threshold` is the all-experts switch on B·k/E (<= 0 never switches).
ExpertGroups group_experts(const RoutingTrace& trace, double threshold);

}  // namespace stasim
