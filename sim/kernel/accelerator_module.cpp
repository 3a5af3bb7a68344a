#include "sim/kernel/accelerator_module.hpp"

#include <limits>
#include <string>

#include "sim/core/input_error.hpp"
#include "sim/kernel/deadlock_report.hpp"

namespace stasim {
namespace {

// A run may not start past this clock value, so no run's times (int64 picoseconds) can overflow SystemC's
// 64-bit clock: 2^62 ps is 53 days of simulated time, against milliseconds per decode step.
constexpr std::uint64_t kLastOrigin = std::uint64_t{1} << 62;

}  // namespace

AcceleratorModule& AcceleratorModule::of_this_process() {
  // Never destroyed: SystemC's own kernel state lives as long as the process, and so do the processes here.
  static AcceleratorModule* top = new AcceleratorModule();
  return *top;
}

AcceleratorModule::AcceleratorModule() {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  dma_ = std::make_unique<DmaModule>("dma");
}

std::uint64_t AcceleratorModule::clock_left_ps() const {
  std::uint64_t now = sc_core::sc_time_stamp().value();
  return now < kLastOrigin ? kLastOrigin - now : 0;
}

RawRun AcceleratorModule::run(const RunGraph& run, const HardwareConfig& hw, const OpLocator& where) {
  if (failed_) throw SimulationError("the simulation kernel of this process failed in an earlier run");
  if (clock_left_ps() == 0) throw SimulationError("the simulation kernel of this process has used up its clock");
  state_.reset(run, hw, sc_core::sc_time_stamp().value());
  psum_.reset(state_);
  state_.set_psum(&psum_);
  const auto& queues = run.graph->queues();
  bound_ = 0;
  for (std::uint32_t q = 0; q < queues.size(); ++q) {
    if (queues[q].engine == Engine::dma) continue;
    if (bound_ == engines_.size())
      engines_.push_back(std::make_unique<EngineModule>(("engine" + std::to_string(bound_)).c_str()));
    engines_[bound_++]->bind(state_, q);
  }
  dma_->bind(state_);
  // SystemC's initialization runs processes in the order they were made (the engines in queue order, then the
  // DMA); delta notifications fire the last one made first, so they are made in the opposite order.
  dma_->start_run();
  for (std::size_t i = bound_; i-- > 0;) engines_[i]->start_run();
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    failed_ = true;
    throw SimulationError(std::string("the simulation kernel failed: ") + e.what());
  }
  return take_result(where);
}

RawRun AcceleratorModule::take_result(const OpLocator& where) {
  const ScheduleGraph& graph = state_.graph();
  if (state_.finished_count() != graph.size()) {
    StuckSnapshot snapshot;
    snapshot.finished.resize(graph.size());
    for (OpId v = 0; v < graph.size(); ++v) snapshot.finished[v] = state_.timings()[v].end_ps >= 0;
    for (std::uint32_t q = 0; q < graph.queues().size(); ++q) snapshot.queue_head.push_back(state_.head(q));
    psum_.settle(std::numeric_limits<Picoseconds>::max());  // every release told has happened by now
    snapshot.psum_banks = psum_.banks();
    snapshot.psum_holder = psum_.holders();
    throw DeadlockError(DeadlockReport(graph, snapshot).text(where));
  }
  RawRun raw;
  raw.timings = state_.take_timings();
  raw.peak_psum_banks = psum_.peak_banks();
  raw.active_ps = state_.activity().active_ps();
  raw.kernel_activations = dma_->activations();
  for (std::size_t i = 0; i < bound_; ++i) raw.kernel_activations += engines_[i]->activations();
  return raw;
}

}  // namespace stasim
