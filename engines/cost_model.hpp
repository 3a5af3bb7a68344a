// Instruction cost formulas of the compute engines, in cycles of the engine's own clock, as pure functions.
// Sources: docs/hardware-model.md (NC-v2 figures; v3/v4 perf modes applied as divisors on N).
// op_duration() dispatches an Op to its formula (its initiation interval: how long it holds its engine) and
// honours the op's own `cycles` / `duration_ns` override; op_latency_ps() is how much later its result is written.
#pragma once

#include <cstdint>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/units.hpp"

namespace stasim::cost {

// TensorE matmul: max(min(MIN, m), n) cycles (ISA), x4 for FP32 inputs, plus a LoadStationary when the
// stationary operand changes. k only has to fit the array (the contraction runs in parallel across rows).
double matmul_cycles(const TensorEngineConfig& t, std::uint32_t m, std::uint32_t n, Dtype dtype, bool load_stationary);
// How much the dI/dt throttle at `rate` (start fraction .. 1) stretches a matmul when it slows only the moving
// stream (tensor.throttle_stretches_floor false): max(floor, n / rate) / max(floor, n), floor = min(MIN, m) —
// 1 for a stream no longer than its floor, 1 / rate for one at least floor / rate long. The FP32 factor scales
// floor and stream alike and cancels; a LoadStationary still paid is stretched by the same factor.
double matmul_throttle_stretch(const TensorEngineConfig& t, std::uint32_t m, std::uint32_t n, double rate);
// TensorE transpose of a [partitions, free] tile: max(P, min(64, F)) cycles (ISA).
double transpose_cycles(const TensorEngineConfig& t, std::uint32_t partitions, std::uint32_t free);

// ScalarE activation: max(MIN, N) (+ the reduce read-out); every function costs the same (ARCH-v2, ISA).
double activation_cycles(const EngineConfig& e, std::uint32_t free, bool reduce);
// tensor_tensor: max(MIN, N) with one input in PSUM or all-BF16, else max(MIN, 2N) (ISA); BF16 perf mode.
double tensor_tensor_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum);
// tensor_scalar and tensor_copy: max(MIN, N / speedup), the BF16 perf mode only with SBUF inputs (ISA, ARCH-v3, ARCH-v4).
double tensor_scalar_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum);
double tensor_copy_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype, bool input_in_psum);
// tensor_reduce: N/2 for BF16 add/max, else N (ISA), never below MIN.
double tensor_reduce_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype);
// memset: max(MIN, N/2) for 16-bit types, else max(MIN, N) (ISA).
double memset_cycles(const EngineConfig& e, std::uint32_t free, Dtype dtype);
// GpSimd iota: GPSIMD_START + N (ISA).
double iota_cycles(const EngineConfig& g, std::uint32_t free);
// GpSimd gathers: engines/gather_cost.hpp (ISA groups, per-index and per-word terms).

// Software DGE on GpSimd: GPSIMD_START plus swdge_descriptor_cycles per descriptor of the transfer the op
// describes (sim/core/dma_descriptors.hpp). Nothing public gives the per-descriptor cost (docs/hardware-model.md): assumed.
double descriptor_generation_cycles(const EngineConfig& g, const Op& op);

// TP all-reduce of `bytes` per rank: alpha + bytes x beta (parameters in the hardware config; assumed values).
Picoseconds all_reduce_ps(const CollectiveConfig& c, std::uint64_t bytes);

// Engine config of a compute engine (not DMA).
const EngineConfig& engine_config(const HardwareConfig& hw, Engine e);
double clock_ghz(const HardwareConfig& hw, Engine e);

// How long a compute op holds its engine (its initiation interval): the next instruction of the engine may
// start then. Its result is written op_latency_ps() later.
Picoseconds op_duration(const Op& op, const HardwareConfig& hw);
// The same before rounding, in (fractional) picoseconds: what a check compares with the time type's range
// before op_duration rounds it into int64 picoseconds.
double op_duration_exact_ps(const Op& op, const HardwareConfig& hw);
// The pipeline latency after the interval (core.engines.<e>.latency_cycles; docs/hardware-model.md): a dependent
// instruction, or a transfer of the result, waits for it; an independent one does not. 0 for ops whose time
// is given (`cycles`, `duration_ns`), DMA, collectives, software descriptor generation and GpSimd-DMA exchanges.
Picoseconds op_latency_ps(const Op& op, const HardwareConfig& hw);
// ScalarE: the activation-table load an activation pays when the table its function needs is not loaded.
Picoseconds table_load_ps(const HardwareConfig& hw);

}  // namespace stasim::cost
