#include "engines/gather_cost.hpp"

#include <algorithm>


namespace stasim::cost {
namespace {

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::fp32: return 4;
    case Dtype::bf16:
    case Dtype::fp16: return 2;
    case Dtype::mxfp4: return 0.5;
    default: return 1;
  }
}

}  // namespace

double gather_cycles(const EngineConfig& g, const Op& op) {
  const double elements = op.free;
  const double per_index = std::max<std::uint16_t>(op.elements_per_index, 1);
  const double indices = elements / per_index;
  // Elements of a narrow dtype that share one 32-bit word, but no more than one index fetches (ISA).
  const double packed = std::max(1.0, std::min(4.0 / dtype_bytes(op.dtype), per_index));
  double cycles = g.start_cycles + indices * g.gather_index_cycles + elements * g.gather_word_cycles / packed;
  if (op.index_bytes < 4) cycles += g.start_cycles + indices;  // widen to uint32 (a tensor_copy of its own, ISA)
  return cycles;
}

}  // namespace stasim::cost
