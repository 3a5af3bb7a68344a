#include "sim/accelerator_module.hpp"

#include <string>

#include "sim/input_error.hpp"

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

RawRun AcceleratorModule::take_result() {
  const ScheduleGraph& graph = state_.graph();
  if (state_.finished_count() != graph.size()) {
    std::string stuck;
    int shown = 0;
    for (std::uint32_t q = 0; q < graph.queues().size() && shown < 5; ++q) {
      OpId head = state_.head(q);
      if (head == kNoOp) continue;
      const Op& op = graph.op(head);
      stuck += (shown++ ? "; " : "") + std::string("'") + op.name + "' (" + engine_name(op.engine) + ", core " +
               std::to_string(op.core) + ")" + (state_.deps_done(head) ? " waits for a PSUM bank" : " waits for dependencies");
    }
    throw SimulationError("deadlock: " + std::to_string(graph.size() - state_.finished_count()) +
                          " ops never finished; stuck queue heads: " + stuck);
  }
  RawRun raw;
  raw.timings = std::move(state_.timings());
  raw.peak_psum_banks = psum_.peak_banks();
  raw.kernel_activations = dma_->activations();
  for (const auto& e : engines_) raw.kernel_activations += e->activations();
  return raw;
}

}  // namespace stasim
