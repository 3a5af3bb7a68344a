#include "memory/psum_bank_model.hpp"

#include <algorithm>

namespace stasim {

PsumBankModel::PsumBankModel(RunState& state) : state_(state), banks_(state.hw().psum.banks) {
  holder_.assign(std::size_t(state.hw().lnc) * banks_, kFree);
  waiters_.resize(holder_.size());
  held_.assign(state.hw().lnc, 0);
}

OpId PsumBankModel::admit(OpId op, std::uint32_t queue) {
  const Op& o = state_.graph().op(op);
  if (o.psum_bank < 0 || o.psum_group == 0xFFFFFFFFu) return kNoOp;
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.psum_bank));
  if (holder_[s] == kFree) {
    holder_[s] = o.psum_group;
    peak_ = std::max(peak_, ++held_[o.core]);
    return kNoOp;
  }
  if (holder_[s] == o.psum_group) return kNoOp;
  waiters_[s].push_back(queue);
  return state_.graph().psum_groups()[holder_[s]].release_op;
}

void PsumBankModel::finished(OpId op, Picoseconds now_ps) {
  const Op& o = state_.graph().op(op);
  if (o.releases_psum_bank < 0) return;
  std::size_t s = slot(o.core, static_cast<std::uint32_t>(o.releases_psum_bank));
  std::uint32_t h = holder_[s];
  if (h == kFree || state_.graph().psum_groups()[h].release_op != op) return;
  holder_[s] = kFree;
  --held_[o.core];
  std::vector<std::uint32_t> waiting;
  waiting.swap(waiters_[s]);
  for (std::uint32_t q : waiting)
    if (QueueListener* l = state_.listener(q)) l->wake(now_ps);
}

}  // namespace stasim
