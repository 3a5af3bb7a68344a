// TileHazards: the dependencies that declared buffers imply, so a kernel writer lists no deps by hand. Each
// physical buffer slot is split into the parts a kernel addresses (a tile's index in its block); an op reads,
// writes or accumulates into parts:
//   read after write (RAW)  - a reader waits for the part's last writer;
//   write after read (WAR)  - a writer waits for every reader since the last write;
//   write after write (WAW) - a writer waits for the last writer;
//   accumulate              - matmuls accumulating into one PSUM tile follow the one that began it in the
//                             engine's order without waiting for each other's results; the one that begins
//                             it is a write, and a reader or writer after them waits for the last one.
// Plain bookkeeping, no graph: the kernel program turns the returned producers into dependencies.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

class TileHazards {
 public:
  // accumulate_begin: the first matmul of an accumulation (it overwrites), accumulate: the ones after it.
  enum class Access : std::uint8_t { read, write, accumulate_begin, accumulate };

  // Part `part` of slot `slot` as one key.
  struct Part {
    std::uint32_t slot = 0;
    std::uint32_t part = 0;
    bool operator==(const Part& o) const { return slot == o.slot && part == o.part; }
  };

  // Records that `op` accesses `part` and appends to `deps` the ops it must wait for (duplicates possible).
  void access(OpId op, Part part, Access how, std::vector<OpId>& deps);

 private:
  struct State {
    OpId last_writer = kNoOp;
    bool accumulating = false;        // last_writer is the latest of a run of accumulations
    std::vector<OpId> readers;        // since the last write
  };
  struct PartHash {
    std::size_t operator()(const Part& p) const { return std::size_t{p.slot} * 1000003u ^ p.part; }
  };
  std::unordered_map<Part, State, PartHash> parts_;
};

}  // namespace stasim
