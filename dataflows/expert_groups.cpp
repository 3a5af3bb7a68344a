#include "dataflows/expert_groups.hpp"

#include "workloads/alignment.hpp"

namespace stasim {

ExpertGroups group_experts(const RoutingTrace& trace, double threshold) {
  ExpertGroups out;
  double load = static_cast<double>(trace.tokens) * static_cast<double>(trace.top_k) / static_cast<double>(trace.experts);
  out.block_size = reference_block_size(trace.routes(), trace.experts);
  Alignment a = align_routes(trace, out.block_size, AlignmentOrder::canonical);
  if (threshold > 0 && load >= threshold) {
    out.all_experts = true;
    for (std::int32_t e = 0; e < trace.experts; ++e)
      out.groups.push_back({e, static_cast<std::uint32_t>(a.expert_count[static_cast<std::size_t>(e)]),
                            static_cast<std::uint32_t>(trace.tokens)});
    return out;
  }
  for (std::int32_t e = 0; e < trace.experts; ++e) {
    std::int64_t count = a.expert_count[static_cast<std::size_t>(e)];
    if (count == 0) continue;
    std::int64_t padded = (count + out.block_size - 1) / out.block_size * out.block_size;
    out.groups.push_back({e, static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(padded)});
  }
  return out;
}

}  // namespace stasim
