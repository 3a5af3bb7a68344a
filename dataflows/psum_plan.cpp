#include "dataflows/psum_plan.hpp"

#include "sim/core/input_error.hpp"

namespace stasim {

PsumPlan::PsumPlan(KernelBuilder& b, std::uint8_t core, const PsumRoles& roles)
    : b_(b), core_(core), explicit_(roles.explicit_addresses) {
  const std::uint32_t total = b.hw().psum.banks;
  const std::uint32_t down = roles.explicit_addresses ? 0 : roles.down;
  const std::uint32_t fixed = roles.table + roles.lr + down + roles.layout + roles.running_sum;
  // The gate/up pool needs at least one bank, or no expert can start.
  if (fixed + 1 > total)
    throw InputError("the expert loop needs " + std::to_string(fixed + 1) + " PSUM banks (" +
                     std::to_string(roles.running_sum) + " held by the down projection summed in PSUM across experts) but " +
                     b.hw().name + " has " + std::to_string(total) + ": choose another --down-schedule");
  // Banks from the top for the fixed roles, the rest (from bank 0, as mlp_tkg numbers gate then up) for gate/up.
  // Each role's banks in ascending order: the n banks just below those already taken.
  std::uint32_t next = total;
  auto take_into = [&](std::vector<std::uint32_t>& banks, std::uint32_t n) {
    next -= n;
    for (std::uint32_t bank = next; bank < next + n; ++bank) banks.push_back(bank);
  };
  auto take = [&](PsumRole role, std::uint32_t n) { take_into(banks_[int(role)], n); };
  take_into(running_, roles.running_sum);
  take(PsumRole::down, down);
  take(PsumRole::layout, roles.layout);
  take(PsumRole::lr, roles.lr);
  take(PsumRole::table, roles.table);
  for (std::uint32_t bank = 0; bank < next; ++bank) banks_[int(PsumRole::gate_up)].push_back(bank);
}

Accumulator PsumPlan::open(PsumRole role, const std::string& name) {
  const std::vector<std::uint32_t>& pool = banks_[pool_of(role)];
  std::uint32_t& next = next_[pool_of(role)];
  std::uint32_t bank = pool[next % pool.size()];
  next = (next + 1) % static_cast<std::uint32_t>(pool.size());
  return b_.open_accumulator_at(core_, bank, name);
}

Accumulator PsumPlan::open_at(PsumRole role, std::uint32_t index, const std::string& name) {
  if (!explicit_) return open(role, name);
  const std::vector<std::uint32_t>& pool = banks_[pool_of(role)];
  return b_.open_accumulator_at(core_, pool[index % pool.size()], name);
}

}  // namespace stasim
