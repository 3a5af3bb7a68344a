// Dataflows by name. A dataflow decides how a layer's routed experts run and which weight representation they
// read; everything else of the decode step is shared. register_builtin() adds the shipped ones; there is no
// static registration.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dataflows/decode_step.hpp"

namespace stasim {

struct Dataflow {
  std::string name;
  std::string description;
  RoutedExperts routed;
  // The representation this dataflow reads, given the user's (d, r, K) request.
  Representation (*representation)(std::int64_t d, std::int64_t r, std::int64_t K) = nullptr;
  // Which of (d, r, K) `representation` reads: a sweep runs one point per combination of those only, so a
  // dataflow that ignores r (vq-only) is not repeated for every r of the grid.
  bool uses_d = false, uses_r = false, uses_K = false;
  // Whether its expert loop can share an expert between a core's tokens (`--group-routes`: the hybrid's loop).
  bool groups_routes = false;
  // Whether it runs compiler-lowered (one kernel per op, no expert loop split between the cores): xla and w4a8.
  bool compiler_lowered = false;
};

class DataflowRegistry {
 public:
  void add(Dataflow dataflow);
  // Throws InputError naming the known dataflows (with a did-you-mean) for an unknown name.
  const Dataflow& find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Dataflow> dataflows_;
};

void register_builtin(DataflowRegistry& registry);

}  // namespace stasim
