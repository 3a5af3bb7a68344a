// The MoE GEMM's work partition of route-blocks.md (Marlin MoE: data-parallel waves, then stream-K over the
// remainder): for every global tile (MoE block, N-tile), whether it is computed full-K by one worker (direct)
// or split into K slices over several workers, and the fixed order in which split partials are reduced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stasim {

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
  std::int64_t waves = 0;            // W
  std::int64_t remainder_tiles = 0;  // R (after a possible merge)
  bool merged_wave = false;          // 3R <= G folded one full wave into the remainder
  std::int64_t direct_tiles = 0;     // W * G
  std::int64_t iters = 0;            // K-tiles per stream-K worker
  std::int64_t split_tiles = 0;
  std::vector<TilePlan> tiles;       // index t <-> (block t / n_tiles, N-tile t % n_tiles)

  std::int64_t remainder_start_block() const { return direct_tiles / n_tiles; }
  std::int64_t remainder_start_n_tile() const { return direct_tiles % n_tiles; }
  const TilePlan& tile(std::int64_t block, std::int64_t n_tile) const {
    return tiles[static_cast<size_t>(block * n_tiles + n_tile)];
  }
};

// Throws InputError (naming the value) when the config is invalid.
WorkPartition partition_work(const WorkPartitionConfig& config);

const char* tile_class_name(TileClass tile_class);

// The reference launch rule (Marlin MoE, small-batch configurations) as an option: among the candidate thread
// configurations whose tiles divide N and K, the one with the most resident blocks per SM (first wins ties);
// the grid is SMs x that count. Register use per thread is a kernel property, so it is an input here.
struct LaunchLimits {
  std::int64_t sm_count = 82;                      // RTX 3090
  std::int64_t registers_per_sm = 65536;           // 32-bit registers
  std::int64_t shared_memory_per_block = 101376;   // bytes, opt-in maximum (sm_86)
  std::int64_t registers_per_thread = 168;         // compiled kernel's use (assumed)
  std::int64_t max_blocks_per_sm = 4;              // the reference caps its count at 4
  std::int64_t pipeline_stages = 4;
};

struct LaunchChoice {
  std::int64_t thread_k = 0;
  std::int64_t thread_n = 0;
  std::int64_t threads = 0;
  std::int64_t blocks_per_sm = 0;
  std::int64_t grid = 0;
};

LaunchChoice select_launch(std::int64_t n, std::int64_t k, std::int64_t block_size, std::int64_t group_size,
                           const LaunchLimits& limits);

}  // namespace stasim
