#include "kernels/tile_hazards.hpp"

namespace stasim {

void TileHazards::access(OpId op, Part part, Access how, std::vector<OpId>& deps) {
  State& s = parts_[part];
  switch (how) {
    case Access::read:
      if (s.last_writer != kNoOp) deps.push_back(s.last_writer);
      s.readers.push_back(op);
      return;
    case Access::accumulate:
      // Accumulating after accumulating: in the engine's order, no wait. After a plain write or reads: as a write.
      if (s.accumulating && s.readers.empty()) {
        s.last_writer = op;
        return;
      }
      [[fallthrough]];
    case Access::accumulate_begin:
    case Access::write:
      if (s.last_writer != kNoOp) deps.push_back(s.last_writer);
      deps.insert(deps.end(), s.readers.begin(), s.readers.end());
      s.readers.clear();
      s.last_writer = op;
      s.accumulating = how != Access::write;
      return;
  }
}

}  // namespace stasim
