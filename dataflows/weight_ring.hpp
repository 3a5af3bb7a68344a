// WeightRing: streams weight chunks into a ring of SBUF slots on one core, as kernels do for weights larger
// than the scratchpad: loading a chunk into a slot waits (write-after-read) until the last reader of the chunk
// that held the slot has run. The number of slots is what the caller asks for, cut to the SBUF budget.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "dataflows/decode_context.hpp"

namespace stasim {

class WeightRing {
 public:
  // `slot_bytes` per partition; `wanted` slots (0 = as many as the budget allows); `budget_share` of the usable
  // SBUF per partition this ring may take. At least two slots (double buffering) when a single one would not
  // let loads overlap compute.
  WeightRing(DecodeContext& ctx, std::uint32_t core, const std::string& name, std::uint64_t slot_bytes,
             std::uint32_t wanted, double budget_share);

  // `dge`: the transfer's descriptor mode (dynamic addresses of routed experts need hwdge or swdge).
  OpId load(std::uint64_t bytes, std::uint32_t partitions, std::uint32_t contiguous, Deps deps, const char* phase,
            const std::string& label, DgeMode dge = DgeMode::static_);
  // Marks `reader` as a reader of the chunk `load` brought in (the last one registered frees the slot).
  void read_by(OpId load, OpId reader);
  std::uint32_t slots() const { return static_cast<std::uint32_t>(slots_.size()); }

 private:
  struct Slot {
    std::uint32_t buffer;
    OpId current_load = kNoOp;   // the chunk now in the slot
    OpId last_reader = kNoOp;    // its last reader so far (the load itself before any)
  };
  DecodeContext& ctx_;
  std::uint8_t core_;
  std::vector<Slot> slots_;
  std::uint32_t next_ = 0;
  std::unordered_map<OpId, std::uint32_t> slot_of_load_;
};

}  // namespace stasim
