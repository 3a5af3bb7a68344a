// ReferenceData: the measured figures of configs/reference/published.yaml, validated and expanded into one
// ReferenceTarget per figure (an entry with `values:` becomes one target per key: per ablation variant, per
// named representation, or per pair "a_vs_b" of them). Each target names the decode run(s) that predict it;
// `stasim calibrate` and `stasim validate` share this reading. Facts are qualitative findings; those with
// checks are computed from runs or from other targets' predictions and reported as holding or not.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"

namespace stasim {

// One decode simulation a target needs. Targets that need the same run share it.
struct ReferenceRun {
  std::string dataflow;
  std::int64_t d = 0, r = 0;
  std::int64_t layers = 0;  // 0 = all
  bool reuse = true, batch_gathers = true;
  bool operator<(const ReferenceRun& o) const;
  bool operator==(const ReferenceRun& o) const { return !(*this < o) && !(o < *this); }
  std::string describe() const;
};

enum class TargetKind {
  tpot_ms,
  reduction_vs_dense,     // 1 - TPOT(run) / TPOT(dense)
  reduction_vs_previous,  // 1 - TPOT(run) / TPOT(the ablation step before)
  active_us,              // engine- or DMA-active time
  instructions,           // instructions of an engine
  hbm_read_change,        // HBM bytes read by run / by baseline - 1
  step_time_ratio,        // step time of run / of baseline
  attention_share,        // attention-phase time on the critical path / TPOT
};

struct ReferenceTarget {
  std::string id;          // "profile6.tensor_active_us[reuse]" for per-key figures
  TargetKind kind = TargetKind::tpot_ms;
  std::string engine;      // active_us / instructions: tensor, vector, scalar, gpsimd, or dma (active only)
  double value = 0;
  ReferenceRun run;
  ReferenceRun baseline;   // reductions, changes and ratios: the run the figure is measured against
  std::string where;       // file:line of the entry, for messages
  // ±5 % TPOT; ±1.5 points ablation steps; ±2 points the attention share; ±10 % profile times, instruction
  // counts, byte changes and ratios.
  double tolerance() const;
  bool absolute_tolerance() const;   // reductions and shares are compared in absolute points, the rest relatively
  bool has_baseline() const;
};

// What a fact's check computes.
enum class FactMetric {
  attention_share,         // of a run: attention-phase time on the critical path / TPOT
  down_dma_overlap,        // of a run: share of the down weights' DMA time during which gate/up computation runs
  critical_engine,         // of a run: the engine with the most time on the critical path (DMA queues and collectives as "dma")
  attention_weight_share,  // of the model: attention's share of the decoder layers' weights
  targets_positive,        // every listed target's prediction is above 0 (e.g. each ablation step lowers TPOT)
  target_ratio,            // prediction of the first listed target / of the second
  target_less,             // prediction of the first listed target < of the second
};

// One check of a fact. A share or ratio holds within [at_least, at_most] (either may be open), or within
// `within` of `value`; an engine check holds when the engine equals `equals`.
struct FactCheckSpec {
  FactMetric metric = FactMetric::attention_share;
  ReferenceRun run;                   // run metrics
  std::vector<std::string> targets;   // target metrics: ids of targets of the same file
  std::string equals;                 // critical_engine
  double value = 0, within = 0.015;
  double at_least = -1e300, at_most = 1e300;
  bool has_value = false;
  bool needs_run() const;
  bool holds(double simulated) const;
  std::string expected() const;       // "dma", ">= 80.0%", "10.4% +-1.5pt", "in [3, 5]"
};

struct ReferenceFact {
  std::string id, text;
  std::vector<FactCheckSpec> checks;  // empty: reported as text only
  bool checked() const { return !checks.empty(); }
};

struct ReferenceData {
  std::string file, source, hardware, model;
  std::int64_t tp = 0, lnc = 0, batch = 0, K = 256;
  std::vector<ReferenceTarget> targets;
  std::vector<ReferenceFact> facts;
  // The distinct runs the targets and checked facts need, in a fixed order (sorted).
  std::vector<ReferenceRun> runs() const;
  // The ids of the targets and facts that need `run` (for messages about a run that cannot be simulated).
  std::vector<std::string> users_of(const ReferenceRun& run) const;
};

ReferenceData load_reference(const std::string& path, const DataflowRegistry& registry);

}  // namespace stasim
