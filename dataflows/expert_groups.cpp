#include "dataflows/expert_groups.hpp"

#include <algorithm>
#include <map>

#include "sim/core/input_error.hpp"

namespace stasim {

const char* to_string(ShardOn shard) {
  switch (shard) {
    case ShardOn::hidden: return "hidden";
    case ShardOn::tokens: return "tokens";
    case ShardOn::top_k: return "top_k";
  }
  return "hidden";
}

std::vector<ExpertGroup> loop_items(const CoreExperts& core, bool group) {
  if (group || core.routes.empty()) return core.groups;
  std::vector<ExpertGroup> items;
  items.reserve(core.routes.size());
  for (const Route& r : core.routes) items.push_back({core.groups[r.group].expert, 1});
  return items;
}

ShardOn choose_shard(std::uint32_t tokens, const ShardingInputs& in) {
  // selective_expert_impl.py: shard_on_T is disabled for T == 1 and for H * I >= 3072 * 1536.
  if (in.all_experts || in.cores <= 1) return ShardOn::hidden;
  if (in.split_top_k) return ShardOn::top_k;
  if (tokens <= 1) return ShardOn::hidden;
  if (in.hidden * in.intermediate_rank >= 3072ull * 1536ull) return ShardOn::hidden;
  return ShardOn::tokens;
}

ExpertGroups group_experts(const RoutingTrace& trace, const ShardingInputs& in) {
  ExpertGroups out;
  const std::uint32_t tokens = static_cast<std::uint32_t>(trace.tokens);
  const std::uint32_t cores = std::max<std::uint32_t>(in.cores, 1);
  out.step_tokens = tokens;
  out.all_experts = in.all_experts;
  out.shard = choose_shard(tokens, in);
  if (out.shard == ShardOn::top_k && trace.top_k % cores != 0)
    throw InputError("--split-top-k: top-" + std::to_string(trace.top_k) + " routing does not split evenly over " +
                     std::to_string(cores) + " cores");
  std::vector<char> used(static_cast<std::size_t>(std::max<std::int64_t>(trace.experts, 0)), 0);
  for (std::int64_t t = 0; t < trace.tokens; ++t)
    for (std::int64_t k = 0; k < trace.top_k; ++k) used[static_cast<std::size_t>(trace.expert_of(std::int64_t(t) * trace.top_k + k))] = 1;
  out.distinct = static_cast<std::uint32_t>(std::count(used.begin(), used.end(), 1));
  if (in.all_experts) {
    if (out.distinct == 0)
      throw InputError("--all-experts: the routing names no expert, so there is nothing to mask the experts with");
    // all_expert_impl.py: every local expert once, over all T tokens, the routing applied as an affinity mask.
    out.distinct = static_cast<std::uint32_t>(trace.experts);
    for (std::uint32_t c = 0; c < cores; ++c) {
      CoreExperts ce;
      ce.first_token = 0;
      ce.tokens = tokens;
      for (std::int32_t e = 0; e < trace.experts; ++e) ce.groups.push_back({e, tokens});
      out.cores.push_back(std::move(ce));
    }
    out.step = out.cores[0].groups;
    return out;
  }
  std::map<std::int32_t, std::uint32_t> step_group;
  for (std::int64_t t = 0; t < trace.tokens; ++t)
    for (std::int64_t k = 0; k < trace.top_k; ++k) {
      std::int32_t e = static_cast<std::int32_t>(trace.expert_of(t * trace.top_k + k));
      auto it = step_group.find(e);
      if (it == step_group.end()) {
        it = step_group.emplace(e, static_cast<std::uint32_t>(out.step.size())).first;
        out.step.push_back({e, 0});
      }
      ++out.step[it->second].tokens;
    }
  for (std::uint32_t c = 0; c < cores; ++c) {
    CoreExperts ce;
    if (out.shard == ShardOn::tokens) {
      // For odd T core 0 gets T/2 (rounded down) and core 1 the rest, as the kernel splits.
      std::uint32_t base = tokens / cores;
      ce.first_token = base * c;
      ce.tokens = c + 1 == cores ? tokens - base * (cores - 1) : base;
    } else {
      ce.first_token = 0;
      ce.tokens = tokens;
    }
    std::map<std::int32_t, std::uint32_t> group_of;
    std::int64_t k0 = 0, k1 = trace.top_k;  // the k-th experts of each token this core runs
    if (out.shard == ShardOn::top_k) {
      k0 = trace.top_k / cores * c;
      k1 = k0 + trace.top_k / cores;
    }
    for (std::uint32_t t = ce.first_token; t < ce.first_token + ce.tokens; ++t)
      for (std::int64_t k = k0; k < k1; ++k) {
        std::int32_t e = static_cast<std::int32_t>(trace.expert_of(std::int64_t(t) * trace.top_k + k));
        auto it = group_of.find(e);
        if (it == group_of.end()) {
          it = group_of.emplace(e, static_cast<std::uint32_t>(ce.groups.size())).first;
          ce.groups.push_back({e, 0});
        }
        ++ce.groups[it->second].tokens;
        ce.routes.push_back({t, it->second});
      }
    out.cores.push_back(std::move(ce));
  }
  return out;
}

}  // namespace stasim
