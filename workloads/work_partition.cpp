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
  if (thread_n > 0 && thread_n < kMinThreadN)
    out.push_back("thread_n = " + std::to_string(thread_n) + " is below Marlin's minimum thread tile " +
                  std::to_string(kMinThreadN) + " (min_thread_n)");
  if (thread_k > 0 && thread_k < kMinThreadK)
    out.push_back("thread_k = " + std::to_string(thread_k) + " is below Marlin's minimum thread tile " +
                  std::to_string(kMinThreadK) + " (min_thread_k)");
  if (thread_n > kMaxThreadN)
    out.push_back("thread_n = " + std::to_string(thread_n) + " is above Marlin's maximum thread tile " +
                  std::to_string(kMaxThreadN) + " (max_thread_n)");
  if (thread_n >= kMinThreadN && thread_n % 64 != 0)
    out.push_back("thread_n = " + std::to_string(thread_n) + " is not a multiple of 64 (one warp's 64 outputs)");
  if (thread_k >= kMinThreadK && (thread_k % 64 != 0 || ((thread_k / 64) & (thread_k / 64 - 1)) != 0))
    out.push_back("thread_k = " + std::to_string(thread_k) + " is not 64 times a power of two (its thread_k / 32 "
                  "warp rows are reduced pairwise)");
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
    // Batch-invariant (vLLM PR #46639, use_full_k: each output tile reduced over the full K by a single block,
    // per the PR's description; its diff was not among the stored sources): tile t is worker t mod G's. Counted
    // as the full-K kernel does: W = floor(T / G) full waves, then the R = T - W*G tail, each tail tile still a
    // single full-K slice (no stream-K split); R = 0 leaves no remainder at all.
    p.waves = T / G;
    p.direct_tiles = p.waves * G;
    p.remainder_tiles = T - p.direct_tiles;
    p.iters = p.k_tiles;
    for (std::int64_t t = 0; t < T; ++t) {
      TilePlan& tile = p.tiles[static_cast<size_t>(t)];
      tile.slices = {{t % G, 0, p.k_tiles}};
      tile.tile_class = t < p.direct_tiles ? TileClass::direct : TileClass::stream_single;
    }
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

std::int64_t marlin_cache_bytes(std::int64_t thread_k, std::int64_t thread_n, std::int64_t block_size,
                                std::int64_t group_size, std::int64_t stages) {
  // get_kernel_cache_size / get_scales_cache_size (ops.cu @fb4ff9fa) with 4-bit weights (pack factor 8), FP16
  // activations, no act order and no zero points.
  const std::int64_t tb_m = (block_size + 15) / 16 * 16;  // thread_m_blocks * 16
  const std::int64_t block_meta = tb_m * 16;              // sorted ids, read ids, top-k weights
  const std::int64_t a_bytes = stages * tb_m * thread_k * 2;
  const std::int64_t b_bytes = stages * (thread_k * thread_n / 8) * 4;
  const std::int64_t red_bytes = tb_m * (thread_n + 8) * 2;
  const std::int64_t bias_bytes = thread_n * 2;
  const std::int64_t b_or_red = std::max(std::max(b_bytes, red_bytes), std::min(b_bytes, red_bytes) + bias_bytes);
  const std::int64_t groups = group_size > 0 ? (thread_k + group_size - 1) / group_size : 1;
  const std::int64_t scale_bytes = groups * thread_n * 2 * stages;
  return b_or_red + a_bytes + scale_bytes + block_meta;
}

LaunchChoice select_launch(const LaunchProblem& problem, const LaunchLimits& limits) {
  struct Candidate {
    std::int64_t thread_k, thread_n, threads;
  };
  // (thread_k, thread_n, threads) in priority order; blocks of more than 16 rows use the large-batch list.
  const std::vector<Candidate> small_batch = {{128, 128, 256}, {64, 128, 128}, {128, 64, 128}};
  const std::vector<Candidate> large_batch = {{64, 256, 256}, {64, 128, 128}, {128, 64, 128}};
  const std::int64_t thread_m_blocks = (problem.block_size + 15) / 16;
  const std::int64_t cap = thread_m_blocks == 1 ? 4 : 2;
  const std::int64_t n = problem.n, k = problem.k;
  LaunchChoice best;
  for (const Candidate& c : thread_m_blocks > 1 ? large_batch : small_batch) {
    if (n % c.thread_n != 0 || k % c.thread_k != 0) continue;
    if (problem.group_size > 0 && problem.group_size < c.thread_k && c.thread_k % problem.group_size != 0) continue;
    const std::int64_t cache = marlin_cache_bytes(c.thread_k, c.thread_n, problem.block_size, problem.group_size,
                                                  limits.pipeline_stages);
    if (cache > limits.shared_memory_per_block - 512) continue;  // is_valid_config's margin
    const std::int64_t by_registers = limits.register_file_bytes / (limits.registers_per_thread * c.threads * 4);
    const std::int64_t by_shared = limits.shared_memory_per_block / (cache + 1536);
    std::int64_t count = std::clamp<std::int64_t>(std::min(by_registers, by_shared), 1, cap);
    // Small-problem clause: no more resident blocks than n_tiles * routed tokens * 4 / SMs, so a tiny problem
    // is not spread over a grid with almost no work per block.
    const std::int64_t work = n / c.thread_n * problem.routed_tokens * 4;
    bool lowered = false;
    const std::int64_t limit = count;
    if (work < limits.sm_count * count) {
      count = std::max<std::int64_t>(work / limits.sm_count, 1);
      lowered = true;
    }
    if (count > best.blocks_per_sm) best = {c.thread_k, c.thread_n, c.threads, count, 0, lowered, limit};
  }
  if (best.blocks_per_sm == 0)
    throw InputError("no thread configuration fits n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                     " with MoE block size " + std::to_string(problem.block_size));
  best.grid = best.blocks_per_sm * limits.sm_count;
  return best;
}

}  // namespace stasim
