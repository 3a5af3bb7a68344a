// ReferenceData: the measured figures of configs/reference/published.yaml, validated and expanded into one
// ReferenceTarget per figure (a profile entry with values per variant becomes one target per variant). Each
// target names the decode run that predicts it; `stasim calibrate` and `stasim validate` share this reading.
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
  std::string describe() const;
};

enum class TargetKind { tpot_ms, reduction_vs_dense, reduction_vs_previous, active_us, instructions };

struct ReferenceTarget {
  std::string id;          // "profile6.tensor_active_us[reuse]" for per-variant figures
  TargetKind kind = TargetKind::tpot_ms;
  std::string engine;      // active_us / instructions: tensor, vector, scalar, gpsimd, or dma (active only)
  double value = 0;
  ReferenceRun run;
  ReferenceRun baseline;   // reductions: the run the reduction is measured from
  std::string where;       // file:line of the entry, for messages
  double tolerance() const;          // ±5% TPOT, ±1.5 points reductions, ±10% profile times and counts
  bool absolute_tolerance() const;   // reductions are compared in absolute points, the rest relatively
};

// A qualitative fact of the study. With a `check:` it is also computed from a run and reported as holding or
// not, but never fitted (calibration fits the targets only).
enum class FactMetric {
  none,
  attention_share,   // attention-phase time on the critical path / TPOT
  down_dma_overlap,  // share of the down weights' DMA time during which gate/up computation runs
};

struct ReferenceFact {
  std::string id, text;
  FactMetric metric = FactMetric::none;
  double value = 0;      // the published share, held within ±1.5 points (when at_least is not given)
  double at_least = -1;  // a published lower bound instead ("over 80%")
  ReferenceRun run;
  bool checked() const { return metric != FactMetric::none; }
  bool holds(double simulated) const;
};

struct ReferenceData {
  std::string file, source, hardware, model;
  std::int64_t tp = 0, lnc = 0, batch = 0, K = 256;
  std::vector<ReferenceTarget> targets;
  std::vector<ReferenceFact> facts;
  std::vector<ReferenceRun> runs() const;  // the distinct runs the targets and checked facts need, in a fixed order
};

ReferenceData load_reference(const std::string& path, const DataflowRegistry& registry);

}  // namespace stasim
