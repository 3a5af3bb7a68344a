// HardwareConfig: one NeuronCore generation as configs/hw/*.yaml describes it. Every number has its unit in
// its name; load_hardware() reads a file (plus --set overrides), reports every problem at once with file, line
// and key path, and returns validated values the simulator can trust.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/config_reader.hpp"

namespace stasim {

struct TensorEngineConfig {
  double clock_ghz = 0;
  std::uint32_t rows = 128;                 // contraction partitions of the systolic array
  std::uint32_t columns = 128;              // stationary free size = output partitions
  std::uint32_t max_moving_free = 512;      // moving free size of one matmul (one PSUM bank of FP32)
  double min_issue_cycles = 64;             // MM_INIT_LATENCY: initiation interval floor
  double load_stationary_cycles = 32;       // fast LoadStationary when the stationary operand changes
  // LoadStationary in the background (docs/hardware-model.md): a matmul that changes its stationary operand and
  // follows the previous instruction without a gap loads it under that instruction, from the moment the operand
  // is ready, and pays only what did not fit, as ARCH-v2 documents ("runs in the background, overlapping the current
  // MM"). Off (a what-if): every such matmul pays the whole load before its moving data.
  bool background_load_stationary = true;
  double fp32_cost_factor = 4;              // FP32 inputs run at a quarter rate
  std::uint32_t fp8_k_factor = 1;           // contraction multiplier of FP8 double_row (v3+: 2)
  std::uint32_t mx_k_factor = 0;            // contraction multiplier of MX matmuls (v4: 4; 0 = unsupported)
  // dI/dt throttling (docs/hardware-model.md, EXPLORER): after low load the engine runs at `throttle_start_fraction` of
  // its rate and ramps to full over `throttle_ramp_ns`; the limit re-engages when its busy share over the last
  // `throttle_window_ns` fell below `throttle_threshold`. A start fraction of 1 turns it off.
  double throttle_start_fraction = 1;
  double throttle_ramp_ns = 3000;
  double throttle_window_ns = 3000;
  double throttle_threshold = 0.5;
  // Whether the throttle also stretches a matmul's issue floor (min(min_issue_cycles, m)). True (the default): a
  // throttled instruction takes 1/rate of its whole cost, so a skinny matmul pays twice its 64-cycle floor.
  // False (a what-if): only the moving stream (n columns) slows down, so a matmul streaming fewer columns than
  // its floor runs at the floor; the dI/dt limit is read as a cap on array activity, which a one-column stream
  // barely has. Nothing public says which; docs/hardware-model.md.
  bool throttle_stretches_floor = true;
  // Pipeline latency (docs/hardware-model.md, assumed: the array's depth): a matmul's result is in PSUM this many
  // cycles after its moving data has streamed in; the next instruction issues without waiting for it.
  double latency_cycles = 128;
  // PE tiling (nc_matmul tile_size, ISA): the smallest row and column tile (v2: 2 x 64, v3+: 4 x 32). Matmuls on
  // disjoint tiles of the array run at once.
  std::uint32_t min_tile_rows = 64;
  std::uint32_t min_tile_columns = 64;

  void read(ConfigReader& r);
};

// Vector, scalar and GpSimd engines share one shape of cost model (docs/hardware-model.md).
struct EngineConfig {
  double clock_ghz = 0;
  double min_issue_cycles = 64;             // MIN_II
  // Pipeline latency: an instruction's result is written this many cycles after its initiation interval ends;
  // a stream of independent instructions pays the interval only, a dependent one waits for the latency too.
  double latency_cycles = 200;
  // ScalarE: loading the activation table of a function the engine does not hold (docs/hardware-model.md).
  double table_load_cycles = 0;
  // VectorE exponential (v4 only): its throughput relative to N elements per cycle; 0 = not available.
  double exponential_speedup = 0;
  double bf16_speedup = 1;                  // perf-mode divisor on N for all-BF16 copy/tensor_scalar/activation
  double bf16_tensor_tensor_speedup = 1;    // perf-mode divisor on N for all-BF16 tensor_tensor
  double reduce_extra_cycles = 64;          // activation_reduce / tensor_scalar_reduce read-out
  // GpSimd only (engines/gather_cost.hpp): GPSIMD_START per instruction, the per-index and per-32-bit-word
  // cycles of a partition lane, and software descriptor generation.
  double start_cycles = 150;
  double gather_index_cycles = 7;
  double gather_word_cycles = 1;
  double swdge_descriptor_cycles = 4;

  void read(ConfigReader& r, bool gpsimd);
};

struct SbufConfig {
  std::uint32_t partitions = 128;
  std::uint64_t bytes_per_partition = 0;
  std::uint64_t reserved_bytes_per_partition = 0;  // DMA scratch, identity tensor: not for kernels
  std::uint64_t usable_bytes_per_partition() const { return bytes_per_partition - reserved_bytes_per_partition; }
};

struct PsumConfig {
  std::uint32_t partitions = 128;
  std::uint32_t banks = 8;
  std::uint64_t bytes_per_bank_per_partition = 2048;
};

struct DmaConfig {
  std::uint32_t engines = 16;
  std::uint32_t queues = 16;
  double bytes_per_ns_per_engine = 0;
  // A queue dispatches one transfer at a time: each takes issue_ns (descriptor setup, synchronisation,
  // semaphore-to-start) before its bytes move, while the bytes of earlier transfers keep moving; at most
  // queue_depth transfers of a queue are in flight (memory/dma_queue_model.hpp).
  double issue_ns = 1300;
  std::uint32_t queue_depth = 2;
  // The core's descriptor processing, shared by its DMA engines: one descriptor after another, in the order
  // the transfers were triggered; a transfer cannot finish before its descriptors are processed.
  double descriptor_ns = 4;
  // From a transfer's last byte to its consumers seeing its completion semaphore.
  double completion_ns = 290;
  double hwdge_ns = 600;                     // a hardware-DGE DMA instruction on its issuing queue
  std::uint32_t hwdge_instances = 2;         // hardware DGE blocks per core (0: none, hwdge transfers are an error)
  // The queues a core's cross-core exchanges (sendrecv) rotate over in issue order, its last ones: 1 is one
  // pipe (every exchange after the one before), 0 none reserved (exchanges take the next queue like any load).
  std::uint32_t exchange_queues = 1;
  // What carries a cross-core exchange (nki.isa.sendrecv's dma_engine): `dma`, the shared DMA queues above (the
  // default; exchange_queues applies), or `gpsimd_dma`, GpSimd's own DMA engine ("low-latency SB-to-SB swaps in
  // LNC=2"): an op in GpSimd's instruction stream that holds GpSimd for gpsimd_dma_ns + the link latency + the
  // bytes over the link, and takes no DMA queue.
  enum class ExchangeEngine : std::uint8_t { dma, gpsimd_dma };
  ExchangeEngine exchange_engine = ExchangeEngine::dma;
  double gpsimd_dma_ns = 500;                // assumed: a GpSimd-DMA transfer's fixed cost (nothing public)
  double bytes_per_ns() const { return engines * bytes_per_ns_per_engine; }
};

struct LinkConfig {   // cross-core (LNC=2) SBUF-to-SBUF path
  double bytes_per_ns = 0;
  double latency_ns = 0;
};

struct CollectiveConfig {  // TP all-reduce: alpha + bytes * beta
  double alpha_ns = 0;
  double beta_ns_per_byte = 0;
};

// The host's part of a decode step (NxDI's default synchronous loop: the application calls the runtime's
// nrt_execute once per token and waits for it; the runtime's async mode, which would overlap the next step's host
// work, is off by default): submitting the step, its inputs and outputs and the framework's own work between two
// steps. It adds to the device's step in the TPOT (docs/hardware-model.md, "The step").
struct RuntimeConfig {
  double step_us = 0;
};

struct HardwareConfig {
  std::string name;
  std::string file;                          // where it was loaded from, for messages
  std::uint32_t device_cores = 8;
  double hbm_capacity_gib = 0;
  double hbm_bandwidth_gbps = 0;             // GB/s = bytes per ns, whole device
  std::uint32_t lnc = 1;                     // physical cores per logical core; the simulated cores
  TensorEngineConfig tensor;
  EngineConfig vector, scalar, gpsimd;
  SbufConfig sbuf;
  PsumConfig psum;
  DmaConfig dma;
  LinkConfig link;
  CollectiveConfig collective;
  RuntimeConfig runtime;
  double semaphore_ns = 50;

  // HBM bandwidth the simulated (logical) core may use: its share of the device.
  double hbm_bytes_per_ns_available() const { return hbm_bandwidth_gbps * lnc / device_cores; }
};

HardwareConfig read_hardware(const YamlNode& root, const std::string& file);

// Finds the file of a shipped hardware config by name ("trn3"), "" when there is none: how an overlay anywhere
// reaches its base (sim/studies/config_paths.hpp provides the one the programs use).
using ShippedHardware = std::function<std::string(const std::string& name)>;

// The YAML document of a hardware file with its `base:` chain merged in (what overrides apply to).
YamlNode load_hardware_document(const std::string& path, const ShippedHardware& shipped = {});
// The same with `key.path=value` overrides applied: the resolved config that load_hardware reads.
YamlNode resolved_hardware_document(const std::string& path, const std::vector<std::string>& overrides,
                                    const ShippedHardware& shipped = {});
// A file may be an overlay: `base: trn3` (a shipped name: `trn3.yaml` beside the overlay, else a file `trn3` there,
// else `shipped(name)`) or `base: path/to/base.yaml` (relative to the overlay's folder), then only the keys it
// changes; every overlay key must exist in the base (a typo gets a did-you-mean) and the merged document is
// validated like any other, values reported at the overlay's lines. A chain of more than 16 overlays is refused.
// Overrides apply after the merge.
HardwareConfig load_hardware(const std::string& path, const std::vector<std::string>& overrides = {},
                             const ShippedHardware& shipped = {});

}  // namespace stasim
