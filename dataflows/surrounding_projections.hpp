// The dense projections around the routed experts that read the MoE block's normalized hidden state: router
// scores, the shared experts' gate/up (docs/cardan.md "Surrounding-projection fusion"). Fused, they stream as
// one wider weight whose first tiles are the router's columns alone, so top-k waits only for those; unfused,
// each runs as its own kernel (KernelBoundary) with its weights loaded inside it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dataflows/decode_context.hpp"
#include "dataflows/down_combiner.hpp"
#include "dataflows/weight_ring.hpp"

namespace stasim {

// One fused weight [H, Σ widths] streamed as tiles through one chain of matmuls per tile, drained to SBUF.
// The constructor issues every tile's load (static weights: prefetched); compute() emits the matmuls and drains
// of a range of tiles, so the router's tile can be reduced, and top-k run, before the other tiles' drains take
// the vector engine.
class FusedStream {
 public:
  // `lead_alone`: the first segment's columns (the router's scores) get tiles of their own.
  FusedStream(DecodeContext& ctx, std::uint32_t core, const std::vector<std::uint32_t>& widths, const Deps& load_deps,
              const char* phase, const std::string& name, bool lead_alone);
  // The tiles of the first segment (when it leads alone) or all of them.
  std::uint32_t lead_tiles() const { return lead_tiles_; }
  std::uint32_t tiles() const { return static_cast<std::uint32_t>(tiles_.size()); }
  void compute(std::uint32_t first, std::uint32_t last, OpId normed);
  // Per segment, per 512-column tile of the segment: the drain after which its columns are in SBUF (the
  // tiles covering it must have been computed).
  std::vector<std::vector<OpId>> ready() const;

 private:
  DecodeContext& ctx_;
  std::uint32_t core_;
  std::vector<std::uint32_t> widths_;
  const char* phase_;
  std::string name_;
  std::unique_ptr<WeightRing> ring_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tiles_;  // (first column, width)
  std::vector<OpId> loads_, drains_;
  std::uint32_t lead_tiles_ = 0;
};

// A gated or non-gated dense MLP whose gate/up came out of a fused projection; only its down weights load here
// (after `load_deps`). Adds y to `combiner`; returns the op after which its weights were last read.
OpId fused_mlp_tail(DecodeContext& ctx, std::uint32_t core, std::uint32_t cols, const std::vector<OpId>& gate_ready,
                    const std::vector<OpId>& up_ready, const Deps& load_deps, DownCombiner& combiner,
                    const std::string& name);

}  // namespace stasim
