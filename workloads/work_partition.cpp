#include "workloads/work_partition.hpp"

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/core/memory_budget.hpp"

namespace stasim {

std::vector<std::string> WorkPartitionConfig::problems() const {
  std::vector<std::string> out;
  auto positive = [&](const char* name, std::int64_t v) {
    if (v <= 0) out.push_back(std::string(name) + " must be positive, got " + std::to_string(v));
  };
  positive("blocks", blocks);
  positive("n", n);
  positive("k", k);
  positive("thread_n", thread_n);
  positive("thread_k", thread_k);
  positive("grid", grid);
  // The worker loop runs once per worker: a grid far beyond any GPU's would only be a hang.
  if (grid > (std::int64_t{1} << 20)) out.push_back("grid must be at most 1048576 workers, got " + std::to_string(grid));
  if (group_size < 0) out.push_back("group size must not be negative, got " + std::to_string(group_size));
  if (n > 0 && thread_n > 0 && n % thread_n != 0)
    out.push_back("n = " + std::to_string(n) + " is not divisible by thread_n = " + std::to_string(thread_n));
  if (k > 0 && thread_k > 0 && k % thread_k != 0)
    out.push_back("k = " + std::to_string(k) + " is not divisible by thread_k = " + std::to_string(thread_k));
  if (group_size > 0 && k > 0 && k % group_size != 0)
    out.push_back("k = " + std::to_string(k) + " is not divisible by the scale group size " +
                  std::to_string(group_size));
  if (group_size > 0 && thread_k > 0 && group_size >= thread_k && group_size % thread_k != 0)
    out.push_back("scale group size " + std::to_string(group_size) + " is not a multiple of thread_k = " +
                  std::to_string(thread_k));
  if (out.empty()) {
    // One tile record (about 64 bytes with its slice list) per block x N-tile, estimated before allocating.
    std::string memory = memory_problem(double(blocks) * double(n / thread_n) * 64.0,
                                        std::to_string(blocks) + " blocks x " + std::to_string(n / thread_n) + " N-tiles");
    if (!memory.empty()) out.push_back(memory);
  }
  return out;
}

WorkPartition partition_work(const WorkPartitionConfig& config) {
  std::vector<std::string> problems = config.problems();
  if (!problems.empty()) throw InputError(problems);
  WorkPartition p;
  p.config = config;
  p.n_tiles = config.n / config.thread_n;
  p.k_tiles = config.k / config.thread_k;
  p.total_tiles = config.blocks * p.n_tiles;
  const std::int64_t G = config.grid;
  const std::int64_t T = p.total_tiles;
  p.tiles.resize(static_cast<size_t>(T));

  if (config.full_k) {
    // Batch-invariant: tile t is worker t mod G's, one pass over the full K; no stream-K region.
    p.waves = (T + G - 1) / G;
    p.direct_tiles = T;
    p.iters = p.k_tiles;
    for (std::int64_t t = 0; t < T; ++t) p.tiles[static_cast<size_t>(t)].slices = {{t % G, 0, p.k_tiles}};
    return p;
  }

  if (T > G) {
    p.remainder_tiles = T % G;
    // A tiny remainder would leave most workers idle in the stream-K phase; folding one wave in spreads it.
    if (3 * p.remainder_tiles <= G) {
      p.remainder_tiles += G;
      p.merged_wave = true;
    }
    p.waves = (T - p.remainder_tiles) / G;
  } else {
    p.remainder_tiles = T;
    p.waves = 0;
  }
  p.direct_tiles = p.waves * G;
  for (std::int64_t t = 0; t < p.direct_tiles; ++t) p.tiles[static_cast<size_t>(t)].slices = {{t % G, 0, p.k_tiles}};

  const std::int64_t R = p.remainder_tiles;
  p.iters = (p.k_tiles * R + G - 1) / G;
  // Grouped scales: a slice must start on a scale-group boundary, so iters is a multiple of group / thread_k.
  if (config.group_size >= config.thread_k && config.group_size > 0) {
    const std::int64_t step = config.group_size / config.thread_k;
    p.iters = (p.iters + step - 1) / step * step;
  }
  // Worker w owns flattened K-tiles [w * iters, (w + 1) * iters) of the remainder's (tile, K-tile) sequence.
  const std::int64_t flat_total = R * p.k_tiles;
  for (std::int64_t worker = 0; worker * p.iters < flat_total; ++worker) {
    std::int64_t begin = worker * p.iters;
    std::int64_t end = std::min(flat_total, begin + p.iters);
    for (std::int64_t pos = begin; pos < end;) {
      std::int64_t local = pos / p.k_tiles;
      std::int64_t k_begin = pos % p.k_tiles;
      std::int64_t k_end = std::min(p.k_tiles, k_begin + (end - pos));
      p.tiles[static_cast<size_t>(p.direct_tiles + local)].slices.push_back({worker, k_begin, k_end});
      pos += k_end - k_begin;
    }
  }
  for (std::int64_t t = p.direct_tiles; t < T; ++t) {
    TilePlan& tile = p.tiles[static_cast<size_t>(t)];
    // Slices were appended in ascending K; the reduction starts from the highest K range.
    std::reverse(tile.slices.begin(), tile.slices.end());
    if (tile.slices.size() > 1) {
      tile.tile_class = TileClass::split;
      ++p.split_tiles;
    } else {
      tile.tile_class = TileClass::stream_single;
    }
  }
  return p;
}

const char* tile_class_name(TileClass tile_class) {
  switch (tile_class) {
    case TileClass::direct: return "direct";
    case TileClass::stream_single: return "stream_full_k";
    case TileClass::split: return "split";
  }
  return "?";
}

LaunchChoice select_launch(std::int64_t n, std::int64_t k, std::int64_t block_size, std::int64_t group_size,
                           const LaunchLimits& limits) {
  struct Candidate {
    std::int64_t thread_k, thread_n, threads;
  };
  // The reference's small-batch candidates, in its order (thread_k, thread_n, threads).
  const Candidate candidates[] = {{128, 128, 256}, {64, 128, 128}, {128, 64, 128}};
  LaunchChoice best;
  for (const Candidate& c : candidates) {
    if (n % c.thread_n != 0 || k % c.thread_k != 0) continue;
    if (group_size > 0 && group_size < c.thread_k && c.thread_k % group_size != 0) continue;
    // Shared memory per block: the pipeline's stages each hold an activation tile (block rows padded to the
    // 16-row MMA tile, FP16) and a 4-bit weight tile, plus one FP16 scale row per tile.
    const std::int64_t rows = std::max<std::int64_t>(16, (block_size + 15) / 16 * 16);
    const std::int64_t cache_bytes = limits.pipeline_stages * (rows * c.thread_k * 2 + c.thread_k * c.thread_n / 2) +
                                     c.thread_n * 2;
    if (cache_bytes > limits.shared_memory_per_block) continue;
    std::int64_t by_registers = limits.registers_per_sm / (limits.registers_per_thread * c.threads);
    std::int64_t by_shared = limits.shared_memory_per_block / (cache_bytes + 1024);
    std::int64_t count = std::clamp<std::int64_t>(std::min(by_registers, by_shared), 1, limits.max_blocks_per_sm);
    if (count > best.blocks_per_sm) best = {c.thread_k, c.thread_n, c.threads, count, 0};
  }
  if (best.blocks_per_sm == 0)
    throw InputError("no thread configuration fits n = " + std::to_string(n) + ", k = " + std::to_string(k));
  best.grid = best.blocks_per_sm * limits.sm_count;
  return best;
}

}  // namespace stasim
