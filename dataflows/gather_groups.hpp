// The expert groups of the hybrid's batched gathers: consecutive experts in J arrival order (the order their
// J_e loads were issued), each group one GpSimd selection per projection, each expert's reduction waiting only
// for its own group. nc_n_gather runs as ceil(elements per partition / 512) ISA instruction groups: a group
// holds as many experts as one instruction group (512 elements per partition) takes (at least one), so batching
// pays GpSimd's per-instruction start and index widening once per instruction group instead of once per
// expert, while the next group's selections start as soon as its J_e are in and run while this group's
// experts reduce. One instruction fetches one number of elements per index, so a group's experts serve the
// same token count.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace stasim {

// (first expert, count) per group, covering every expert; `elements[e]` is what expert e's selection gathers
// per partition, `tokens[e]` its token count (elements per index), `group_elements` the ISA's elements per
// partition per instruction group (the hardware's core.engines.gpsimd.gather_group_elements: 512 for
// nki.isa.nc_n_gather).
std::vector<std::pair<std::uint32_t, std::uint32_t>> gather_groups(const std::vector<std::uint32_t>& elements,
                                                                   const std::vector<std::uint32_t>& tokens,
                                                                   std::uint32_t group_elements);

}  // namespace stasim
