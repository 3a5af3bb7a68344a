#include "dataflows/weight_ring.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"

namespace stasim {

WeightRing::WeightRing(DecodeContext& ctx, std::uint32_t core, const std::string& name, std::uint64_t slot_bytes,
                       std::uint32_t wanted, double budget_share)
    : ctx_(ctx), core_(static_cast<std::uint8_t>(core)) {
  slot_bytes = std::max<std::uint64_t>(slot_bytes, 1);
  std::uint64_t budget = static_cast<std::uint64_t>(ctx.hw.sbuf.usable_bytes_per_partition() * budget_share);
  std::uint64_t fit = budget / slot_bytes;
  if (fit < 1)
    throw InputError("a weight chunk of " + std::to_string(slot_bytes) + " bytes per partition (" + name + ") does not fit the " +
                     std::to_string(budget) + " bytes per partition of SBUF the kernel gives its weights on " + ctx.hw.name);
  std::uint64_t count = wanted == 0 ? fit : std::min<std::uint64_t>(wanted, fit);
  count = std::max<std::uint64_t>(count, std::min<std::uint64_t>(2, fit));
  for (std::uint64_t s = 0; s < count; ++s)
    slots_.push_back({ctx.b.buffer(core_, label(core, name + ".slot" + std::to_string(s)), slot_bytes), kNoOp, kNoOp});
}

OpId WeightRing::load(std::uint64_t bytes, std::uint32_t partitions, std::uint32_t contiguous, Deps deps,
                      const char* phase, const std::string& name, DgeMode dge) {
  Slot& slot = slots_[next_];
  deps.push_back(slot.last_reader);
  OpId id = ctx_.b.dma(core_, bytes, partitions, Location::hbm, Location::sbuf, deps, phase, name, -1, 0, contiguous, dge);
  ctx_.b.use(id, slot.buffer);
  slot.current_load = id;
  slot.last_reader = id;
  slot_of_load_[id] = next_;
  next_ = (next_ + 1) % slots_.size();
  return id;
}

void WeightRing::read_by(OpId load, OpId reader) {
  auto it = slot_of_load_.find(load);
  if (it == slot_of_load_.end() || reader == kNoOp) return;
  Slot& slot = slots_[it->second];
  // Only a reader of the chunk still in the slot moves its release; the slot's next load waits for it.
  if (slot.current_load == load) slot.last_reader = reader;
  ctx_.b.use(reader, slot.buffer);
}

}  // namespace stasim
