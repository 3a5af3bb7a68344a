#include "memory/psum_bank_model.hpp"

#include <algorithm>

namespace stasim {

void PsumBankModel::reset(RunState& state) {
  state_ = &state;
  banks_ = state.hw().psum.banks;
  holder_.assign(std::size_t(state.hw().lnc) * banks_, kFree);
  release_ps_.assign(holder_.size(), kNotReleased);
  if (waiters_.size() < holder_.size()) waiters_.resize(holder_.size());
  for (auto& w : waiters_) w.clear();
  held_.assign(state.hw().lnc, 0);
  first_release_ps_.assign(state.hw().lnc, kNever);
  peak_ = 0;
}

void PsumBankModel::settle_core(std::uint32_t core, Picoseconds now_ps) {
  if (now_ps < first_release_ps_[core]) return;  // no told release has come yet (none told: never)
  Picoseconds first = kNever;
  for (std::uint32_t b = 0; b < banks_; ++b) {
    const std::size_t s = slot(core, b);
    if (holder_[s] == kFree || release_ps_[s] == kNotReleased) continue;
    if (release_ps_[s] <= now_ps) {
      holder_[s] = kFree;
      release_ps_[s] = kNotReleased;
      --held_[core];
    } else {
      first = std::min(first, release_ps_[s]);
    }
  }
  first_release_ps_[core] = first;
}

void PsumBankModel::settle(Picoseconds now_ps) {
  for (std::uint32_t core = 0; core < held_.size(); ++core) settle_core(core, now_ps);
}

OpId PsumBankModel::admit(OpId op, std::uint32_t queue, Picoseconds now_ps) {
  const RunOp& o = state_->run().ops[op];
  if (o.psum_bank < 0 || o.aux == RunGraph::kNoGroup) return kNoOp;
  // Banks released by now are free before this one is counted (the peak counts banks held at once).
  settle_core(o.core, now_ps);
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.psum_bank));
  if (holder_[s] == kFree) {
    holder_[s] = o.aux;
    peak_ = std::max(peak_, ++held_[o.core]);
    return kNoOp;
  }
  if (holder_[s] == o.aux) return kNoOp;
  // Held by another group: its release wakes the queue; if the release is already told, wake it then directly.
  if (release_ps_[s] != kNotReleased) {
    if (QueueListener* l = state_->listener(queue)) l->wake(release_ps_[s]);
  } else {
    waiters_[s].push_back(queue);
  }
  return state_->graph().psum_groups()[holder_[s]].release_op;
}

void PsumBankModel::finished(OpId op, Picoseconds at_ps) {
  const RunOp& o = state_->run().ops[op];
  if (o.releases_bank < 0) return;
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.releases_bank));
  std::uint32_t h = holder_[s];
  if (h == kFree || state_->graph().psum_groups()[h].release_op != op) return;
  release_ps_[s] = at_ps;  // held until then; admit() frees it once that time has come
  first_release_ps_[o.core] = std::min(first_release_ps_[o.core], at_ps);
  // Swapped out before waking: a woken queue that finds the bank taken again queues itself anew.
  waking_.swap(waiters_[s]);
  for (std::uint32_t q : waking_)
    if (QueueListener* l = state_->listener(q)) l->wake(at_ps);
  waking_.clear();
}

}  // namespace stasim
