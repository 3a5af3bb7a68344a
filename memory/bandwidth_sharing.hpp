// Max-min fair sharing (water-filling) of capacities among flows: each flow uses a set of resources (a core's
// DMA engines, the HBM share, the cross-core link, the core's descriptor processing), each unit of its rate
// taking a weight of each (bytes take one byte of bandwidth and their descriptors' processing time per byte),
// and may have a cap of its own (the DMA engines it runs on); no flow can get more without taking from one whose rate is smaller or equal,
// and a capped flow leaves what it cannot use to the others. Pure arithmetic, recomputed by the DMA module
// whenever a transfer starts or finishes.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace stasim {

struct Flow {
  std::uint32_t resources[4] = {0, 0, 0, 0};
  double weights[4] = {1, 1, 1, 1};  // what a unit of the flow's rate takes of each resource
  std::uint32_t count = 0;
  double cap = std::numeric_limits<double>::infinity();  // the most this flow can take, whatever is free
  void use(std::uint32_t r, double weight = 1) {
    resources[count] = r;
    weights[count++] = weight;
  }
};

// Rates per flow in the capacities' unit. Every flow must use at least one resource.
std::vector<double> max_min_fair_share(const std::vector<double>& capacity, const std::vector<Flow>& flows);

// The same into `rate` (resized to the flows), with its working memory in `scratch`: the DMA module calls it
// at every change of the transfers in flight and keeps both between calls, so it allocates nothing.
struct FairShareScratch {
  std::vector<double> left;            // per resource: capacity not yet given to flows with a rate
  std::vector<double> fair;            // per resource: what it offers each of its open flows this round
  std::vector<std::uint32_t> users;    // per resource: open flows using it
  std::vector<double> weight;          // per resource: the open flows' weights on it
  std::vector<std::uint32_t> open;     // flows without a rate yet, in flow order
  std::vector<char> fixed;             // per flow: its rate is set
};
void max_min_fair_share(const std::vector<double>& capacity, const std::vector<Flow>& flows,
                        std::vector<double>& rate, FairShareScratch& scratch);

}  // namespace stasim
