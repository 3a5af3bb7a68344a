#include "workloads/alignment.hpp"

#include <algorithm>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/core/memory_budget.hpp"
#include "workloads/seeded_random.hpp"

namespace stasim {
namespace {

void check_block_size(std::int64_t block_size) {
  if (block_size <= 0)
    throw InputError("block size must be positive, got " + std::to_string(block_size));
}

// Counts, padded ranges and block owners: the deterministic part every order shares.
Alignment layout(const RoutingTrace& trace, std::int64_t block_size) {
  check_block_size(block_size);
  std::vector<std::string> problems = routing_problems(trace, "routing");
  if (!problems.empty()) throw InputError(problems);
  // Per expert a count and a start; per padded row a route id and per block an owner: at most routes + E x (b-1)
  // rows, estimated in floating point before any of it is allocated.
  const double padded_rows = double(trace.routes()) + double(trace.experts) * double(block_size - 1);
  require_memory(double(trace.experts) * 16.0 + padded_rows * 12.0,
                 "aligning " + std::to_string(trace.routes()) + " routes over " + std::to_string(trace.experts) +
                     " experts in blocks of " + std::to_string(block_size));
  Alignment a;
  a.path = alignment_path(trace.routes(), trace.experts);
  a.block_size = block_size;
  a.sentinel = trace.routes();
  a.capacity = alignment_capacity(trace.routes(), trace.experts, block_size);
  a.expert_count.assign(static_cast<size_t>(trace.experts), 0);
  for (std::int64_t r = 0; r < trace.routes(); ++r) ++a.expert_count[static_cast<size_t>(trace.expert_of(r))];
  a.expert_start.assign(static_cast<size_t>(trace.experts), 0);
  std::int64_t next = 0;
  for (size_t e = 0; e < a.expert_count.size(); ++e) {
    a.expert_start[e] = next;
    next += (a.expert_count[e] + block_size - 1) / block_size * block_size;
  }
  a.num_tokens_post_padded = next;
  a.rows.assign(static_cast<size_t>(next), a.sentinel);
  a.expert_ids.assign(static_cast<size_t>((a.capacity + block_size - 1) / block_size), -1);
  for (size_t e = 0; e < a.expert_count.size(); ++e) {
    std::int64_t first = a.expert_start[e] / block_size;
    std::int64_t blocks = (a.expert_count[e] + block_size - 1) / block_size;
    for (std::int64_t j = 0; j < blocks; ++j) a.expert_ids[static_cast<size_t>(first + j)] = static_cast<std::int32_t>(e);
  }
  return a;
}

}  // namespace

std::vector<std::int64_t> Alignment::buffer() const {
  std::vector<std::int64_t> out = rows;
  out.resize(static_cast<size_t>(capacity), sentinel);
  return out;
}

std::int64_t reference_block_size(std::int64_t routes, std::int64_t experts) {
  if (experts <= 0) throw InputError("number of experts must be positive, got " + std::to_string(experts));
  for (std::int64_t b : {8, 16, 32, 48, 64}) {
    // Same floating-point test as the reference: M*k/E/b < 0.9.
    if (static_cast<double>(routes) / static_cast<double>(experts) / static_cast<double>(b) < 0.9) return b;
  }
  return 64;
}

std::int64_t alignment_capacity(std::int64_t routes, std::int64_t experts, std::int64_t block_size) {
  check_block_size(block_size);
  std::int64_t capacity = routes + experts * (block_size - 1);
  if (routes < experts) capacity = std::min(capacity, routes * block_size);
  return capacity;
}

AlignmentPathChoice alignment_path(std::int64_t routes, std::int64_t experts) {
  // moe_align_block_size (moe_align_sum_kernels.cu @1377b4e0): small_batch_expert_mode = numel < 1024 && E <= 64,
  // launched with max(E, WARP_SIZE = 32) counting threads (plus fill threads that only write sentinels).
  if (routes < 1024 && experts <= 64) return {AlignmentPath::small_batch, std::max<std::int64_t>(experts, 32)};
  return {AlignmentPath::large_batch, 0};
}

const char* path_name(AlignmentPath path) {
  return path == AlignmentPath::small_batch ? "small-batch" : "large-batch";
}

Alignment align_routes(const RoutingTrace& trace, std::int64_t block_size, AlignmentOrder order, std::uint64_t seed) {
  if (order == AlignmentOrder::injected)
    throw InputError("an injected alignment needs a plan: use align_with_plan");
  Alignment a = layout(trace, block_size);
  a.order = order;
  const bool small = a.path.path == AlignmentPath::small_batch;
  a.seed = order == AlignmentOrder::native && !small ? seed : 0;
  std::vector<std::int64_t> fill(a.expert_start);
  if (order == AlignmentOrder::native && small) {
    // moe_align_block_size_small_batch_expert_kernel: counting thread t walks routes t, t + T, t + 2T, ... (T
    // counting threads) and counts per expert; a prefix over threads gives each thread its first slot inside
    // every expert, and the thread then writes its routes there in the order it walked them. So inside an
    // expert: thread 0's routes ascending, then thread 1's, ... No atomics: the order has no history.
    const std::int64_t T = a.path.threads;
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t r = t; r < trace.routes(); r += T) {
        const size_t e = static_cast<size_t>(trace.expert_of(r));
        a.rows[static_cast<size_t>(fill[e]++)] = r;
      }
    return a;
  }
  for (std::int64_t r = 0; r < trace.routes(); ++r) {
    size_t e = static_cast<size_t>(trace.expert_of(r));
    a.rows[static_cast<size_t>(fill[e]++)] = r;
  }
  if (order == AlignmentOrder::native) {
    // One seeded Fisher-Yates shuffle per expert, experts in id order: the seed stands for the thread timing that
    // decides the atomicAdd on the per-expert cursor in count_and_sort_expert_tokens_kernel (the large path).
    // Valid routes stay ahead of the padding, as there.
    SeededRandom random(seed);
    for (size_t e = 0; e < a.expert_count.size(); ++e) {
      std::int64_t* range = a.rows.data() + a.expert_start[e];
      for (std::int64_t i = a.expert_count[e] - 1; i > 0; --i)
        std::swap(range[i], range[random.below(static_cast<std::uint64_t>(i + 1))]);
    }
  }
  return a;
}

Alignment align_with_plan(const RoutingTrace& trace, std::int64_t block_size, const std::vector<std::int64_t>& plan) {
  Alignment a = layout(trace, block_size);
  a.order = AlignmentOrder::injected;
  if (static_cast<std::int64_t>(plan.size()) != a.num_tokens_post_padded)
    throw InputError("alignment plan has " + std::to_string(plan.size()) + " rows, but the routing pads to " +
                     std::to_string(a.num_tokens_post_padded) + " (num_tokens_post_padded at block size " +
                     std::to_string(block_size) + ")");
  Problems problems;
  std::vector<int> seen(static_cast<size_t>(trace.routes()), 0);
  for (size_t row = 0; row < plan.size(); ++row) {
    const std::int64_t r = plan[row];
    const std::int32_t owner = a.expert_ids[row / static_cast<size_t>(block_size)];
    if (r == a.sentinel) continue;
    if (r < 0 || r > a.sentinel) {
      problems.add("alignment plan row " + std::to_string(row) + ": route id " + std::to_string(r) +
                   " is outside [0, " + std::to_string(a.sentinel) + "] (" + std::to_string(a.sentinel) +
                   " is the padding sentinel)");
      continue;
    }
    if (trace.expert_of(r) != owner)
      problems.add("alignment plan row " + std::to_string(row) + ": route " + std::to_string(r) + " goes to expert " +
                   std::to_string(trace.expert_of(r)) + " but the row lies in expert " + std::to_string(owner) +
                   "'s range");
    if (++seen[static_cast<size_t>(r)] == 2)
      problems.add("alignment plan row " + std::to_string(row) + ": route " + std::to_string(r) + " appears twice");
  }
  for (size_t r = 0; r < seen.size(); ++r)
    if (seen[r] == 0) problems.add("alignment plan: route " + std::to_string(r) + " is missing");
  problems.throw_if_any();
  a.rows = plan;
  return a;
}

MembershipFingerprint membership_fingerprint(const Alignment& a) {
  MembershipFingerprint fingerprint;
  for (std::int64_t block = 0; block < a.blocks(); ++block) {
    BlockMembership m;
    m.expert = a.expert_ids[static_cast<size_t>(block)];
    m.block = block;
    m.index_in_expert = block - a.expert_start[static_cast<size_t>(m.expert)] / a.block_size;
    for (std::int64_t row = block * a.block_size; row < (block + 1) * a.block_size; ++row) {
      std::int64_t r = a.rows[static_cast<size_t>(row)];
      if (r != a.sentinel) m.routes.push_back(r);
    }
    std::sort(m.routes.begin(), m.routes.end());
    fingerprint.push_back(std::move(m));
  }
  return fingerprint;
}

std::string fingerprint_text(const MembershipFingerprint& fingerprint) {
  std::ostringstream out;
  for (const auto& m : fingerprint) {
    out << m.expert << ':' << m.index_in_expert << ':';
    for (size_t i = 0; i < m.routes.size(); ++i) out << (i ? "," : "") << m.routes[i];
    out << ';';
  }
  return out.str();
}

const char* order_name(AlignmentOrder order) {
  switch (order) {
    case AlignmentOrder::native: return "native";
    case AlignmentOrder::canonical: return "canonical";
    case AlignmentOrder::injected: return "injected";
  }
  return "?";
}

}  // namespace stasim
