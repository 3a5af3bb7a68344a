// The MoE GEMM's work partition of route-blocks.md (Marlin MoE: data-parallel waves, then stream-K over the
// remainder; or, with full_k, the batch-invariant variant of vLLM PR #46639, whose use_full_k flag has one
// block reduce each output tile over the full K): for every global tile (MoE block, N-tile), whether it is computed full-K by one worker (direct) or
// split into K slices over several workers, and the fixed order in which split partials are reduced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stasim {

// Marlin's thread-tile limits (vLLM csrc/quantization/gptq_marlin/marlin.cuh: min_thread_n = min_thread_k = 64
// at commit 2f2ea061; later versions add max_thread_n = 256, which csrc/moe/marlin_moe_wna16/ops.cu @025a1342
// uses to size its reduce buffer). A K tile is split over thread_k / 32 warp rows (see marlin_template.h), reduced pairwise,
// so thread_k must be 64 times a power of two; a warp covers 64 outputs, so thread_n is a multiple of 64.
constexpr std::int64_t kMinThreadN = 64;
constexpr std::int64_t kMinThreadK = 64;
constexpr std::int64_t kMaxThreadN = 256;

struct WorkPartitionConfig {
  std::int64_t blocks = 0;  // P aligned MoE blocks
  std::int64_t n = 0;       // GEMM outputs
  std::int64_t k = 0;       // GEMM reduction length
  std::int64_t thread_n = 128;
  std::int64_t thread_k = 64;
  std::int64_t grid = 0;        // G workers
  std::int64_t group_size = 0;  // weight-scale group in K elements; 0 = per-channel scales
  bool full_k = false;          // batch-invariant variant: every tile one full-K slice

  // Every problem at once; empty when valid.
  std::vector<std::string> problems() const;
};

struct KSlice {
  std::int64_t worker = 0;
  std::int64_t k_tile_begin = 0;  // [begin, end) in K-tiles
  std::int64_t k_tile_end = 0;
};

enum class TileClass { direct, stream_single, split };

struct TilePlan {
  TileClass tile_class = TileClass::direct;
  // Reduction order: the first slice deposits its partial, each next one adds the running buffer into its own
  // partial; the last (the owner of K-tile 0) rounds the output. Direct tiles have one full-K slice.
  std::vector<KSlice> slices;
};

struct WorkPartition {
  WorkPartitionConfig config;
  std::int64_t n_tiles = 0;
  std::int64_t k_tiles = 0;
  std::int64_t total_tiles = 0;      // T = P * n_tiles
  std::int64_t waves = 0;            // W full waves of G direct tiles
  std::int64_t remainder_tiles = 0;  // R (after a possible merge); full-K: the T - W*G tail, possibly 0
  bool merged_wave = false;          // 3R <= G folded one full wave into the remainder
  std::int64_t direct_tiles = 0;     // W * G
  std::int64_t iters = 0;            // K-tiles per stream-K worker (full-K: k_tiles)
  std::int64_t split_tiles = 0;
  std::vector<TilePlan> tiles;       // index t <-> (block t / n_tiles, N-tile t % n_tiles)

  // Only a full-K partition can end on a whole wave; then there is no remainder and no start to name.
  bool has_remainder() const { return remainder_tiles > 0; }
  std::int64_t remainder_start_block() const { return direct_tiles / n_tiles; }
  std::int64_t remainder_start_n_tile() const { return direct_tiles % n_tiles; }
  const TilePlan& tile(std::int64_t block, std::int64_t n_tile) const {
    return tiles[static_cast<size_t>(block * n_tiles + n_tile)];
  }
};

// Throws InputError (naming the value) when the config is invalid.
WorkPartition partition_work(const WorkPartitionConfig& config);

const char* tile_class_name(TileClass tile_class);

// The reference launch rule as an option (vLLM csrc/moe/marlin_moe_wna16/ops.cu, determine_exec_config,
// commit fb4ff9fa): among the candidate thread configurations (small- or large-batch list by the MoE block
// size) whose tiles divide N and K and whose pipeline fits shared memory, the one with the most resident blocks
// per SM (first wins ties); the grid is SMs x that count. The count is capped (4, or 2 for blocks over 16 rows)
// and, by the small-problem clause, lowered to n_tiles * routed tokens * 4 / SMs (at least 1) when that is
// smaller. Register use per thread is a property of the compiled kernel, so it is an input here.
struct LaunchLimits {
  std::int64_t sm_count = 82;                     // RTX 3090
  std::int64_t register_file_bytes = 255 * 1024;  // upstream's device_max_reg_size
  std::int64_t shared_memory_per_block = 101376;  // bytes, opt-in maximum (sm_86)
  std::int64_t registers_per_thread = 168;        // compiled kernel's use (assumed)
  std::int64_t pipeline_stages = 4;
};

struct LaunchProblem {
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t routed_tokens = 0;  // prob_m * top_k: tokens x top-k
  std::int64_t block_size = 8;     // MoE block rows
  std::int64_t group_size = 0;     // 0 = per-channel scales
};

struct LaunchChoice {
  std::int64_t thread_k = 0;
  std::int64_t thread_n = 0;
  std::int64_t threads = 0;
  std::int64_t blocks_per_sm = 0;
  std::int64_t grid = 0;
  bool small_problem = false;        // the small-problem clause applied to the chosen configuration
  std::int64_t resident_limit = 0;   // its count from registers and shared memory, before that clause
};

LaunchChoice select_launch(const LaunchProblem& problem, const LaunchLimits& limits);
// Shared memory one thread block needs (get_kernel_cache_size for 4-bit weights, FP16 activations, no act
// order, no zero points), in bytes.
std::int64_t marlin_cache_bytes(std::int64_t thread_k, std::int64_t thread_n, std::int64_t block_size,
                                std::int64_t group_size, std::int64_t stages);

}  // namespace stasim
