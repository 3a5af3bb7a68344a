#include "memory/bandwidth_sharing.hpp"

#include <algorithm>
#include <limits>

namespace stasim {

std::vector<double> max_min_fair_share(const std::vector<double>& capacity, const std::vector<Flow>& flows) {
  std::vector<double> rate;
  FairShareScratch scratch;
  max_min_fair_share(capacity, flows, rate, scratch);
  return rate;
}

void max_min_fair_share(const std::vector<double>& capacity, const std::vector<Flow>& flows,
                        std::vector<double>& rate, FairShareScratch& scratch) {
  const std::size_t n = flows.size();
  if (n == 1) {
    // A flow alone (a third of the DMA module's calls): the first round below gives it its cap when that is at
    // most the smallest capacity it uses, and that capacity otherwise — the same numbers (x / 1 is x),
    // without the rounds' bookkeeping.
    const Flow& f = flows[0];
    double share = std::numeric_limits<double>::infinity();
    for (std::uint32_t i = 0; i < f.count; ++i) {
      std::uint32_t users = 0;  // a resource listed twice counts as two users, as below
      for (std::uint32_t j = 0; j < f.count; ++j) users += f.resources[j] == f.resources[i];
      share = std::min(share, capacity[f.resources[i]] / users);
    }
    rate.assign(1, f.cap <= share ? f.cap : share);
    return;
  }
  rate.resize(n);  // every flow is given its rate in one of the rounds
  std::vector<double>& left = scratch.left;
  std::vector<double>& fair = scratch.fair;
  std::vector<std::uint32_t>& users = scratch.users;
  std::vector<std::uint32_t>& open = scratch.open;
  std::vector<char>& fixed = scratch.fixed;
  left.assign(capacity.begin(), capacity.end());
  fair.resize(capacity.size());
  users.assign(capacity.size(), 0);
  open.resize(n);
  fixed.assign(n, 0);
  for (std::uint32_t f = 0; f < n; ++f) {
    open[f] = f;
    for (std::uint32_t i = 0; i < flows[f].count; ++i) users[flows[f].resources[i]]++;
  }
  // Each round fixes the rates of some flows (`open` lists the others, in flow order); the resources' counts
  // of open flows and what is left of them follow, the flows' rates taken out in flow order.
  while (!open.empty()) {
    // The bottleneck is the resource offering the smallest equal share to its open flows.
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < capacity.size(); ++r) {
      if (users[r] == 0) continue;
      fair[r] = left[r] / users[r];
      share = std::min(share, fair[r]);
    }
    // Flows capped at or below the bottleneck's share take their cap; the rest is shared again without them.
    bool capped = false;
    for (std::uint32_t f : open) {
      if (flows[f].cap > share) continue;
      rate[f] = flows[f].cap;
      fixed[f] = 1;
      capped = true;
    }
    // Otherwise the flows on a bottleneck take the share (every resource of an open flow has a user, so its
    // fair share was computed above).
    for (std::size_t k = 0; !capped && k < open.size(); ++k) {
      const Flow& flow = flows[open[k]];
      for (std::uint32_t i = 0; i < flow.count; ++i)
        if (fair[flow.resources[i]] <= share) fixed[open[k]] = 1;
      if (fixed[open[k]]) rate[open[k]] = share;
    }
    std::size_t kept = 0;
    for (std::uint32_t f : open) {
      if (!fixed[f]) {
        open[kept++] = f;
        continue;
      }
      for (std::uint32_t i = 0; i < flows[f].count; ++i) {
        left[flows[f].resources[i]] -= rate[f];
        users[flows[f].resources[i]]--;
      }
    }
    open.resize(kept);
  }
}

}  // namespace stasim
