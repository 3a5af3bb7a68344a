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
  rate.assign(flows.size(), 0.0);
  std::vector<double>& left = scratch.left;
  std::vector<char>& frozen = scratch.frozen;
  std::vector<std::uint32_t>& users = scratch.users;
  left.assign(capacity.begin(), capacity.end());
  frozen.assign(flows.size(), 0);
  users.resize(capacity.size());
  std::size_t unfrozen = flows.size();
  while (unfrozen > 0) {
    std::fill(users.begin(), users.end(), 0);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f])
        for (std::uint32_t i = 0; i < flows[f].count; ++i) users[flows[f].resources[i]]++;
    // The bottleneck is the resource offering the smallest equal share to its unfrozen flows.
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < capacity.size(); ++r)
      if (users[r] > 0) share = std::min(share, left[r] / users[r]);
    // Flows capped at or below the bottleneck's share take their cap; the rest is shared again without them.
    bool capped = false;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f] || flows[f].cap > share) continue;
      rate[f] = flows[f].cap;
      frozen[f] = 1;
      --unfrozen;
      capped = true;
    }
    for (std::size_t f = 0; !capped && f < flows.size(); ++f) {
      if (frozen[f]) continue;
      bool bottlenecked = false;
      for (std::uint32_t i = 0; i < flows[f].count; ++i) {
        std::uint32_t r = flows[f].resources[i];
        if (left[r] / users[r] <= share) bottlenecked = true;
      }
      if (!bottlenecked) continue;
      rate[f] = share;
      frozen[f] = 1;
      --unfrozen;
    }
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (frozen[f] == 1) {
        for (std::uint32_t i = 0; i < flows[f].count; ++i) left[flows[f].resources[i]] -= rate[f];
        frozen[f] = 2;  // its share is now taken out of every resource it uses
      }
  }
}

}  // namespace stasim
