#include "memory/psum_bank_model.hpp"

#include <algorithm>

namespace stasim {

void PsumBankModel::reset(RunState& state) {
  state_ = &state;
  banks_ = state.hw().psum.banks;
  holder_.assign(std::size_t(state.hw().lnc) * banks_, kFree);
  if (waiters_.size() < holder_.size()) waiters_.resize(holder_.size());
  for (auto& w : waiters_) w.clear();
  held_.assign(state.hw().lnc, 0);
  peak_ = 0;
}

OpId PsumBankModel::admit(OpId op, std::uint32_t queue) {
  const RunOp& o = state_->run().ops[op];
  if (o.psum_bank < 0 || o.aux == RunGraph::kNoGroup) return kNoOp;
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.psum_bank));
  if (holder_[s] == kFree) {
    holder_[s] = o.aux;
    peak_ = std::max(peak_, ++held_[o.core]);
    return kNoOp;
  }
  if (holder_[s] == o.aux) return kNoOp;
  waiters_[s].push_back(queue);
  return state_->graph().psum_groups()[holder_[s]].release_op;
}

void PsumBankModel::finished(OpId op, Picoseconds now_ps) {
  const RunOp& o = state_->run().ops[op];
  if (o.releases_bank < 0) return;
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.releases_bank));
  std::uint32_t h = holder_[s];
  if (h == kFree || state_->graph().psum_groups()[h].release_op != op) return;
  holder_[s] = kFree;
  --held_[o.core];
  // Swapped out before waking: a woken queue that finds the bank taken again queues itself anew.
  waking_.swap(waiters_[s]);
  for (std::uint32_t q : waking_)
    if (QueueListener* l = state_->listener(q)) l->wake(now_ps);
  waking_.clear();
}

}  // namespace stasim
