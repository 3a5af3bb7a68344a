#include "engines/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "engines/gather_cost.hpp"
#include "sim/core/dma_descriptors.hpp"

namespace stasim::cost {
namespace {

bool is_16bit(Dtype d) { return d == Dtype::bf16 || d == Dtype::fp16; }

// MIN_II_DYNAMIC of tensor_copy_dynamic_src/dst: "roughly 600 engine cycles" (ISA).
constexpr double kDynamicMinIssueCycles = 600;

}  // namespace

double matmul_cycles(const TensorEngineConfig& t, std::uint32_t m, std::uint32_t n, Dtype dtype,
                     bool load_stationary) {
  double cycles = std::max(std::min(t.min_issue_cycles, double(m)), double(n));
  if (dtype == Dtype::fp32) cycles *= t.fp32_cost_factor;
  return cycles + (load_stationary ? t.load_stationary_cycles : 0.0);
}

double matmul_throttle_stretch(const TensorEngineConfig& t, std::uint32_t m, std::uint32_t n, double rate) {
  const double floor = std::min(t.min_issue_cycles, double(m));
  const double unthrottled = std::max(floor, double(n));
  if (unthrottled <= 0) return 1;
  return std::max(floor, n / rate) / unthrottled;
}

double transpose_cycles(const TensorEngineConfig& t, std::uint32_t partitions, std::uint32_t free) {
  return std::max(double(partitions), std::min(t.min_issue_cycles, double(free)));
}

double activation_cycles(const EngineConfig& e, std::uint32_t free, bool reduce) {
  return std::max(e.min_issue_cycles, double(free)) + (reduce ? e.reduce_extra_cycles : 0.0);
}

double tensor_tensor_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum) {
  if (input_in_psum) return std::max(e.min_issue_cycles, double(free));
  if (is_16bit(dtype)) return std::max(e.min_issue_cycles, free / e.bf16_tensor_tensor_speedup);
  return std::max(e.min_issue_cycles, 2.0 * free);
}

double tensor_scalar_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum) {
  bool perf_mode = is_16bit(dtype) && !input_in_psum;
  return std::max(e.min_issue_cycles, perf_mode ? free / e.bf16_speedup : double(free));
}

double tensor_copy_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum) {
  return tensor_scalar_cycles(e, free, dtype, input_in_psum);
}

double tensor_reduce_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype) {
  return std::max(e.min_issue_cycles, is_16bit(dtype) ? free / 2.0 : double(free));
}

double memset_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype) {
  return std::max(e.min_issue_cycles, is_16bit(dtype) ? free / 2.0 : double(free));
}

double iota_cycles(const EngineConfig& g, std::uint32_t free) { return g.start_cycles + free; }

namespace {

double all_reduce_exact_ps(const CollectiveConfig& c, std::uint64_t bytes) {
  return (c.alpha_ns + c.beta_ns_per_byte * static_cast<double>(bytes)) * 1000.0;
}

}  // namespace

double descriptor_generation_cycles(const EngineConfig& g, const Op& op) {
  return g.start_cycles + static_cast<double>(descriptor_count(op)) * g.swdge_descriptor_cycles;
}

Picoseconds all_reduce_ps(const CollectiveConfig& c, std::uint64_t bytes) {
  return static_cast<Picoseconds>(std::llround(all_reduce_exact_ps(c, bytes)));
}

const EngineConfig& engine_config(const HardwareConfig& hw, Engine e) {
  switch (e) {
    case Engine::vector: return hw.vector;
    case Engine::scalar: return hw.scalar;
    default: return hw.gpsimd;
  }
}

double clock_ghz(const HardwareConfig& hw, Engine e) {
  return e == Engine::tensor ? hw.tensor.clock_ghz : engine_config(hw, e).clock_ghz;
}

namespace {

// Cycles of the ISA's per-instruction cost formulas (docs/hardware-model.md "Instructions": ISA, the 2.26
// reference's "Estimated instruction cost"), before the accumulator read-out. N = op.free.
double elementwise_cycles(const EngineConfig& e, const Op& op) {
  const double n = op.free;
  const double min_ii = e.min_issue_cycles;
  switch (op.kind) {
    case OpKind::activation: return activation_cycles(e, op.free, false);
    case OpKind::activation_reduce: return activation_cycles(e, op.free, true);
    case OpKind::tensor_tensor: return tensor_tensor_cycles(e, op.free, op.dtype, op.input_in_psum);
    case OpKind::tensor_scalar: return tensor_scalar_cycles(e, op.free, op.dtype, op.input_in_psum);
    case OpKind::tensor_copy: return tensor_copy_cycles(e, op.free, op.dtype, op.input_in_psum);
    case OpKind::tensor_reduce: return tensor_reduce_cycles(e, op.free, op.dtype);
    case OpKind::memset: return memset_cycles(e, op.free, op.dtype);
    case OpKind::iota: return iota_cycles(e, op.free);
    case OpKind::gather: return gather_cycles(e, op);
    case OpKind::descriptors: return descriptor_generation_cycles(e, op);
    case OpKind::transpose: return std::max(min_ii, n);                     // VectorE nc_transpose, 32x32 blocks
    case OpKind::tensor_tensor_scan: return std::max(min_ii, 2 * n);
    case OpKind::bn_stats: return std::max(min_ii, n);
    case OpKind::bn_aggr: return std::max(min_ii, 13 * n / 3);
    // N for the BF16 subtract-then-multiply form with N even, else 2N (ISA); stasim takes BF16 as that form.
    case OpKind::scalar_tensor_tensor:
      return std::max(min_ii, is_16bit(op.dtype) && op.free % 2 == 0 ? n : 2 * n);
    case OpKind::tensor_scalar_reduce: return std::max(min_ii, n) + e.reduce_extra_cycles;
    // tensor_copy_predicated: N with source and predicate in different memories, 2N with both in SBUF (ISA).
    case OpKind::select: return std::max(min_ii, op.input_in_psum ? n : 2 * n);
    case OpKind::affine_select: return e.start_cycles + n;
    case OpKind::range_select: return std::max(min_ii, n);
    case OpKind::reciprocal: return std::max(min_ii, 8 * n);
    case OpKind::max8:
    case OpKind::find_index8: return n;
    // The reference prints min(MIN_II, N), which would make a larger tile cheaper: read as max, like its siblings.
    case OpKind::match_replace8: return std::max(min_ii, n);
    case OpKind::stream_shuffle: return std::max(min_ii, n);
    case OpKind::exponential: return std::max(min_ii, n / e.exponential_speedup);
    case OpKind::dropout: return std::max(min_ii, n);
    case OpKind::copy_dynamic: return std::max(kDynamicMinIssueCycles, n);
    default: return 0;
  }
}

}  // namespace

double op_duration_exact_ps(const Op& op, const HardwareConfig& hw) {
  if (op.duration_ps >= 0) return static_cast<double>(op.duration_ps);
  if (op.engine == Engine::collective) return all_reduce_exact_ps(hw.collective, op.bytes);
  double clock = clock_ghz(hw, op.engine);
  if (op.cycles >= 0) return op.cycles * 1000.0 / clock;
  // A GpSimd-DMA exchange (core.dma.exchange_engine = gpsimd_dma): its fixed cost, the link latency and the bytes
  // over the link, in nanoseconds rather than cycles.
  if (op.kind == OpKind::sendrecv)
    return (hw.dma.gpsimd_dma_ns + hw.link.latency_ns + static_cast<double>(op.bytes) / hw.link.bytes_per_ns) * 1000.0;
  if (op.engine == Engine::tensor) {
    const double cycles = op.kind == OpKind::matmul ? matmul_cycles(hw.tensor, op.m, op.n, op.dtype, op.new_stationary)
                                                    : transpose_cycles(hw.tensor, op.partitions, op.free);
    return cycles * 1000.0 / clock;
  }
  const EngineConfig& e = engine_config(hw, op.engine);
  double cycles = elementwise_cycles(e, op);
  // The accumulator registers are read out by an instruction of their own, ~64 cycles on v2 (ARCH-v2, ISA).
  if (op.accumulate) cycles += e.reduce_extra_cycles;
  return cycles * 1000.0 / clock;
}

// Rounded exactly as ps_from_cycles / ps_from_ns round (the same expression before llround).
Picoseconds op_duration(const Op& op, const HardwareConfig& hw) {
  if (op.duration_ps >= 0) return op.duration_ps;
  return round_ps(op_duration_exact_ps(op, hw));
}

Picoseconds op_latency_ps(const Op& op, const HardwareConfig& hw) {
  if (op.duration_ps >= 0 || op.cycles >= 0) return 0;
  if (op.kind == OpKind::descriptors || op.kind == OpKind::sendrecv || op.kind == OpKind::fixed) return 0;
  switch (op.engine) {
    case Engine::tensor: return ps_from_cycles(hw.tensor.latency_cycles, hw.tensor.clock_ghz);
    case Engine::vector:
    case Engine::scalar:
    case Engine::gpsimd: {
      const EngineConfig& e = engine_config(hw, op.engine);
      return ps_from_cycles(e.latency_cycles, e.clock_ghz);
    }
    default: return 0;
  }
}

Picoseconds table_load_ps(const HardwareConfig& hw) {
  return ps_from_cycles(hw.scalar.table_load_cycles, hw.scalar.clock_ghz);
}

}  // namespace stasim::cost
