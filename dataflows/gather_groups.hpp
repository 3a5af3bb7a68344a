// The expert groups of the hybrid's batched gathers: consecutive experts in J arrival order (the order their
// J_e loads were issued), each group one GpSimd selection call per projection, each expert's reduction waiting
// only for its own group. A group holds half of a token's top-k (ceil(k / 2) experts): the kernel stages the
// index maps of one group while the other group's selection runs (two buffers), so batching pays GpSimd's
// per-call start and index widening once per group instead of once per expert, and the next group's selection
// starts as soon as its J_e are in, while this group's experts reduce. The hybrid's kernel is not public; the
// size is what the measured profile says: at (d, r) = (4, 256) gather batching cuts GpSimd's instructions from
// 385 to 97 over six layers, and 97 ~ 6 layers x 2 cores x 2 projections x 2 calls x 2 instructions (the
// selection and its index widening), i.e. Qwen3's eight experts in two calls of four per projection and core
// (one call of all eight would give 48, one call per expert 384). One instruction fetches one number of
// elements per index, so a group's experts serve the same token count.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace stasim {

// Experts per batched selection call for a model routing each token to `top_k` experts: ceil(top_k / 2), at
// least one.
std::uint32_t experts_per_gather_call(std::int64_t top_k);

// (first expert, count) per group, covering every expert in order: at most `experts_per_call` experts, all
// with the token count of the group's first (`tokens[e]`: expert e's tokens, the elements per index).
std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const std::vector<std::uint32_t>& tokens,
                                                                   std::uint32_t experts_per_call);

}  // namespace stasim
