// PsumPlan: the PSUM banks of one core assigned statically per buffer role for the routed-expert loop, as NKI
// allocates PSUM tensors (nki-library mlp_tkg_constants.py: gate banks [0, n), up banks [n, 2n) when they fit,
// the down projection's banks apart). A role rotates over its own banks only, so the next expert's gate waits
// for the bank its predecessor still holds; a down projection summed in PSUM across the experts takes its
// banks out of the gate/up pool for the whole loop (the cost the study measured for the running sum).
// With explicit addresses (DataflowOptions::explicit_psum) a tensor does not rotate: the caller names its bank, as
// nki-library's selective kernel addresses PSUM when it does not leave allocation to the compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataflows/kernel_builder.hpp"

namespace stasim {

enum class PsumRole : std::uint8_t { gate_up, table, lr, down, layout };

struct PsumRoles {
  std::uint32_t table = 0;   // T = h_blocksᵀ B (hybrid)
  std::uint32_t lr = 0;      // C_eᵀ z in its own group (hybrid without joint accumulation)
  std::uint32_t down = 2;    // y_e = W_downᵀ p_e (two: one drains while the next expert accumulates)
  std::uint32_t layout = 1;  // TensorE transposes (p to [I, T], activation-stationary rows back to [H, T])
  std::uint32_t running_sum = 0;  // banks of a down projection summed across experts (out of the gate/up pool)
  // nki-library's explicit addresses (gate_up_projection_lhs_rhs_swap, down_projection_lhs_rhs_swap: bank i for
  // I tile i, bank j for the down projection's j-th bank, both counted from 0): gate, up and a drained down
  // projection take the same banks, every expert the same ones, nothing multi-buffered across experts. The down
  // role then has no banks of its own (`down` is not taken).
  bool explicit_addresses = false;
};

class PsumPlan {
 public:
  // The gate/up pool gets every bank the other roles leave. Throws InputError when the roles need more banks
  // than the core has (it names the running sum, the only role that grows with the model).
  PsumPlan(KernelBuilder& b, std::uint8_t core, const PsumRoles& roles);

  Accumulator open(PsumRole role, const std::string& name);
  // The role's `index`-th tensor of an expert: with explicit addresses the pool's bank `index` (mod its size), the
  // same for every expert; otherwise the next bank in rotation, as open().
  Accumulator open_at(PsumRole role, std::uint32_t index, const std::string& name);
  bool explicit_addresses() const { return explicit_; }
  // The running-sum banks, held from the first expert to the final drain.
  const std::vector<std::uint32_t>& running_sum_banks() const { return running_; }
  std::uint32_t banks(PsumRole role) const { return static_cast<std::uint32_t>(banks_[int(role)].size()); }
  // Banks of the pool the role opens from (the gate/up pool for a role without banks of its own).
  std::uint32_t pool_banks(PsumRole role) const { return static_cast<std::uint32_t>(banks_[pool_of(role)].size()); }

 private:
  int pool_of(PsumRole role) const { return banks_[int(role)].empty() ? int(PsumRole::gate_up) : int(role); }

  KernelBuilder& b_;
  std::uint8_t core_;
  std::vector<std::uint32_t> banks_[5];
  std::uint32_t next_[5] = {0, 0, 0, 0, 0};
  std::vector<std::uint32_t> running_;
  bool explicit_ = false;
};

}  // namespace stasim
