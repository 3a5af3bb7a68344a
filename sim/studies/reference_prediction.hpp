// Predicting the reference targets: simulates the distinct runs the targets need (spread over the worker pool's
// processes, sim/studies/worker_pool.hpp) and turns their figures into one prediction per target, with
// its error against the published value and whether it is within the target's tolerance.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/core/schedule_graph.hpp"
#include "sim/studies/reference_data.hpp"

namespace stasim {

// What a run gives the targets. A run of the first N layers (a profile run) is measured as a device profile over
// its decoder layers: the embedding and the LM head are left out of every figure, and tpot_us is the span of the
// decoder layers (the profile's step time). Engine-active times are per physical core summed over the rank's
// cores, as a per-core profile of one rank adds up.
struct RunFigures {
  double tpot_us = 0;
  double dma_active_us = 0;
  double hbm_read_bytes = 0;
  std::array<double, kEngineCount> active_us{};
  std::array<double, kEngineCount> instructions{};
  std::array<double, kEngineCount> critical_us{};  // time on the critical path per engine (DMA queues as dma)
  double attention_share = 0;   // attention-phase time on the critical path / TPOT
  double down_dma_overlap = 0;  // share of the down weights' DMA time overlapping gate/up computation
};

// A checked fact: what each of its checks gave (as a number and as shown) and whether all hold.
struct FactCheck {
  const ReferenceFact* fact = nullptr;
  std::vector<double> simulated;     // per check (critical_engine: the engine's index)
  std::vector<std::string> shown;    // per check, as the table prints it
  std::vector<bool> check_holds;     // per check
  bool holds = false;
};

struct Prediction {
  const ReferenceTarget* target = nullptr;
  double predicted = 0;
  double error = 0;  // relative ((predicted - published) / published), or absolute points for reductions and shares
  bool pass = false;
};

struct PredictionSetup {
  std::string hw;                  // name or path
  std::vector<std::string> sets;   // hardware overrides (key.path=value)
  std::string down = "weight-sbuf";
  int workers = 2;
  // Run options of every reference run ("NAME=VALUE", the names of `stasim sweep --vary option.NAME`), checked by
  // reference_run_options: a kernel variant such as fused_gate_up_exchange=1, never the reference's own variants
  // or deployment.
  std::vector<std::string> options;
};

// InputError unless each "NAME=VALUE" names a run option a reference run may take (not reuse, batch_gathers, tp
// or lnc, which the reference fixes) with a valid value; returns them canonical ("fused_gate_up_exchange=1").
std::vector<std::string> reference_run_options(const std::vector<std::string>& options);

// Simulates `runs` (ReferenceData::runs order) with the reference's model and deployment.
std::vector<RunFigures> simulate_runs(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                      const PredictionSetup& setup, const DataflowRegistry& registry);

std::vector<Prediction> predict(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                const std::vector<RunFigures>& figures);

// The facts with a check (in file order); checks on targets use `predictions` (predict()'s result).
std::vector<FactCheck> check_facts(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                   const std::vector<RunFigures>& figures, const std::vector<Prediction>& predictions);

// "targets a, b (run ...)": what a message about a run that cannot be simulated names.
std::string run_users(const ReferenceData& ref, const ReferenceRun& run);

}  // namespace stasim
