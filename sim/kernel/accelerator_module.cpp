#include "sim/kernel/accelerator_module.hpp"

#include <string>

#include "sim/kernel/deadlock_report.hpp"
#include "sim/core/input_error.hpp"

namespace stasim {

AcceleratorModule::AcceleratorModule(sc_core::sc_module_name name, const ScheduleGraph& graph,
                                     const HardwareConfig& hw)
    : sc_core::sc_module(name), state_(graph, hw), psum_(state_) {
  state_.set_psum(&psum_);
  const auto& queues = graph.queues();
  for (std::uint32_t q = 0; q < queues.size(); ++q) {
    if (queues[q].engine == Engine::dma) continue;
    std::string module_name = std::string("core") + std::to_string(queues[q].core) + "_" + engine_name(queues[q].engine);
    engines_.push_back(std::make_unique<EngineModule>(module_name.c_str(), state_, q));
  }
  dma_ = std::make_unique<DmaModule>("dma", state_);
}

RawRun AcceleratorModule::take_result(const OpLocator& where) {
  const ScheduleGraph& graph = state_.graph();
  if (state_.finished_count() != graph.size()) {
    StuckSnapshot snapshot;
    snapshot.finished.resize(graph.size());
    for (OpId v = 0; v < graph.size(); ++v) snapshot.finished[v] = state_.timings()[v].end_ps >= 0;
    for (std::uint32_t q = 0; q < graph.queues().size(); ++q) snapshot.queue_head.push_back(state_.head(q));
    snapshot.psum_banks = psum_.banks();
    snapshot.psum_holder = psum_.holders();
    throw DeadlockError(DeadlockReport(graph, snapshot).text(where));
  }
  RawRun raw;
  raw.timings = std::move(state_.timings());
  raw.peak_psum_banks = psum_.peak_banks();
  raw.kernel_activations = dma_->activations();
  for (const auto& e : engines_) raw.kernel_activations += e->activations();
  return raw;
}

}  // namespace stasim
