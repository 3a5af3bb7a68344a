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
      double weight = 0;  // a resource listed twice counts both weights, as below
      for (std::uint32_t j = 0; j < f.count; ++j) weight += f.resources[j] == f.resources[i] ? f.weights[j] : 0.0;
      share = std::min(share, capacity[f.resources[i]] / weight);
    }
    rate.resize(1);
    rate[0] = f.cap <= share ? f.cap : share;
    return;
  }
  rate.resize(n);  // every flow is given its rate in one of the rounds
  // The scratch arrays only grow, and are filled by plain loops: this runs at every change of the DMA
  // transfers in flight, on a handful of flows and resources, where assign() calls cost more than the rounds.
  const std::size_t resources = capacity.size();
  if (scratch.left.size() < resources) {
    scratch.left.resize(resources);
    scratch.fair.resize(resources);
    scratch.users.resize(resources);
    scratch.weight.resize(resources);
  }
  if (scratch.open.size() < n) {
    scratch.open.resize(n);
    scratch.fixed.resize(n);
  }
  double* left = scratch.left.data();
  double* fair = scratch.fair.data();
  std::uint32_t* users = scratch.users.data();
  double* weight = scratch.weight.data();
  std::uint32_t* open = scratch.open.data();
  char* fixed = scratch.fixed.data();
  for (std::size_t r = 0; r < resources; ++r) {
    left[r] = capacity[r];
    users[r] = 0;
    weight[r] = 0;
  }
  for (std::uint32_t f = 0; f < n; ++f) {
    open[f] = f;
    fixed[f] = 0;
    for (std::uint32_t i = 0; i < flows[f].count; ++i) {
      users[flows[f].resources[i]]++;
      weight[flows[f].resources[i]] += flows[f].weights[i];
    }
  }
  // Each round fixes the rates of some flows (open[0 .. open_count) lists the others, in flow order); the
  // resources' counts of open flows and what is left of them follow, the rates taken out in flow order.
  std::size_t open_count = n;
  while (open_count > 0) {
    // The bottleneck is the resource offering the smallest equal rate to its open flows.
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < resources; ++r) {
      if (users[r] == 0) continue;
      fair[r] = std::max(0.0, left[r]) / weight[r];
      share = std::min(share, fair[r]);
    }
    // Flows capped at or below the bottleneck's share take their cap; the rest is shared again without them.
    bool capped = false;
    for (std::size_t k = 0; k < open_count; ++k) {
      const std::uint32_t f = open[k];
      if (flows[f].cap > share) continue;
      rate[f] = flows[f].cap;
      fixed[f] = 1;
      capped = true;
    }
    // Otherwise the flows on a bottleneck take the share (every resource of an open flow has a user, so its
    // fair share was computed above).
    for (std::size_t k = 0; !capped && k < open_count; ++k) {
      const std::uint32_t f = open[k];
      for (std::uint32_t i = 0; i < flows[f].count; ++i)
        if (fair[flows[f].resources[i]] <= share) fixed[f] = 1;
      if (fixed[f]) rate[f] = share;
    }
    std::size_t kept = 0;
    for (std::size_t k = 0; k < open_count; ++k) {
      const std::uint32_t f = open[k];
      if (!fixed[f]) {
        open[kept++] = f;
        continue;
      }
      for (std::uint32_t i = 0; i < flows[f].count; ++i) {
        left[flows[f].resources[i]] -= rate[f] * flows[f].weights[i];
        weight[flows[f].resources[i]] -= flows[f].weights[i];
        users[flows[f].resources[i]]--;
      }
    }
    open_count = kept;
  }
}

}  // namespace stasim
