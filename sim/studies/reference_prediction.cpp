#include "sim/studies/reference_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "sim/core/input_error.hpp"
#include "sim/kernel/profile_window.hpp"
#include "sim/kernel/result_summary.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/request_axes.hpp"
#include "sim/studies/worker_pool.hpp"
#include "workloads/model_spec.hpp"

namespace stasim {

std::vector<std::string> reference_run_options(const std::vector<std::string>& options) {
  std::vector<std::string> out;
  for (const std::string& o : options) {
    const std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--option " + o + ": expected NAME=VALUE, e.g. fused_gate_up_exchange=1 (the names of sweep's option.* axes)");
    const std::string name = o.substr(0, eq);
    for (const char* fixed : {"reuse", "batch_gathers", "tp", "lnc"})
      if (name == fixed)
        throw InputError("--option " + o + ": the reference sets " + name +
                         " itself (its ablation variants and deployment); an --option may change only what it leaves alone");
    std::string value;
    try {
      value = canonical_option_value(kOptionAxisPrefix + name, o.substr(eq + 1));
    } catch (const InputError& e) {
      // The axis' message names "--vary option.NAME=VALUE" (or lists the axes); the user wrote --option.
      std::string why = e.what();
      const std::string vary = "--vary " + std::string(kOptionAxisPrefix) + o + ": ";
      if (why.rfind(vary, 0) == 0) why = why.substr(vary.size());
      throw InputError("--option " + o + ": " + why);
    }
    for (const std::string& seen : out)
      if (seen.substr(0, seen.find('=')) == name) throw InputError("--option " + o + ": " + name + " is given twice");
    out.push_back(name + "=" + value);
  }
  return out;
}

namespace {

RunRequest request_for(const ReferenceData& ref, const ReferenceRun& run, const PredictionSetup& setup) {
  RunRequest req;
  req.model = ref.model;
  req.hw = setup.hw;
  req.dataflow = run.dataflow;
  if (run.dataflow != "dense") {
    req.d = run.d;
    req.r = run.r;
  }
  req.K = ref.K;
  req.tp = ref.tp;
  req.lnc = ref.lnc;
  req.batch = ref.batch;
  req.layers = run.layers;
  req.down = setup.down;
  req.no_reuse = !run.reuse;
  req.no_batch_gathers = !run.batch_gathers;
  req.sets = setup.sets;
  for (const std::string& o : setup.options)
    apply_option(req, kOptionAxisPrefix + o.substr(0, o.find('=')), o.substr(o.find('=') + 1));
  return req;
}

int engine_index(const std::string& name) {
  Engine e = Engine::tensor;
  if (!parse_engine(name, e)) throw SimulationError("unknown engine '" + name + "'");
  return static_cast<int>(e);
}

bool is_gate_up_compute(const ScheduleGraph& graph, const Op& op) {
  if (op.engine == Engine::dma || op.engine == Engine::collective) return false;
  const std::string& phase = graph.phases()[op.phase];
  return phase == "gate_up" || phase == "gather" || phase == "lr" || phase == "shared_proj";
}

RunFigures figures_of(const DecodeRun& run, bool decoder_layers_only) {
  const SimResult& r = run.result;
  const ScheduleGraph& graph = run.decode.graph;
  RunFigures f;
  auto attention = r.critical_path.by_phase_ps.find("attention");
  if (attention != r.critical_path.by_phase_ps.end() && run.tpot_ps() > 0)
    f.attention_share = static_cast<double>(attention->second) / static_cast<double>(run.tpot_ps());
  f.down_dma_overlap = overlap_share(
      graph, r, [&](const Op& op) { return op.engine == Engine::dma && graph.phases()[op.phase] == "down"; },
      [&](const Op& op) { return is_gate_up_compute(graph, op); });
  for (int e = 0; e < kEngineCount; ++e)
    f.critical_us[e] = static_cast<double>(r.critical_path.by_engine_ps[e]) / 1e6;
  const WindowFigures w = summarize_window(graph, run.hw, r, [&](const Op& op) {
    return !decoder_layers_only || in_decoder_layers(graph, op);
  });
  // A TPOT (and a ratio of TPOTs) is the whole step of the run's model, as measured: a six-layer run is a
  // six-layer model's step (embedding, the layers, the head and the host's part). Profile figures (engine
  // activity, bytes) cover the decoder layers' window.
  f.tpot_us = static_cast<double>(run.tpot_ps()) / 1e6;
  f.hbm_read_bytes = static_cast<double>(w.hbm_read_bytes);
  for (int e = 0; e < kEngineCount; ++e) {
    // Compute engines summed over the rank's physical cores, as the study's profile reports engine active
    // (README "Fidelity"); DMA active is the profiler's "at least one transfer in flight" over the rank,
    // collectives included: the collective-communication cores run an all-reduce as a chain of DMA transfers
    // on the same DMA engines (docs/hardware-model.md, between ranks).
    f.active_us[e] = static_cast<double>(w.active_sum_ps[e]) / 1e6;
    f.instructions[e] = static_cast<double>(w.instructions[e]);
  }
  f.dma_active_us = static_cast<double>(w.dma_with_collectives_union_ps) / 1e6;
  return f;
}

// One run's figures, or why there are none: 'o' and the figures' bytes, 'i' and an input error, 'e' and any
// other error (the form a worker of the pool sends back).
std::string simulate_one(const ReferenceData& ref, const ReferenceRun& run, const PredictionSetup& setup,
                         const DataflowRegistry& registry) {
  try {
    RunFigures f = figures_of(run_decode(request_for(ref, run, setup), registry), run.layers > 0);
    return std::string("o") + std::string(reinterpret_cast<const char*>(&f), sizeof f);
  } catch (const InputError& e) {
    return std::string("i") + e.what();
  } catch (const std::exception& e) {
    return std::string("e") + e.what();
  }
}

// Where the first target or fact that needs `run` stands in the file (targets first, then facts): a run that
// cannot be simulated is reported for the user a reader meets first, whatever the number of workers.
std::size_t first_user_position(const ReferenceData& ref, const ReferenceRun& run) {
  for (std::size_t i = 0; i < ref.targets.size(); ++i) {
    const ReferenceTarget& t = ref.targets[i];
    if (t.run == run || (t.has_baseline() && t.baseline == run)) return i;
  }
  for (std::size_t i = 0; i < ref.facts.size(); ++i)
    for (const FactCheckSpec& c : ref.facts[i].checks)
      if (c.needs_run() && c.run == run) return ref.targets.size() + i;
  return ref.targets.size() + ref.facts.size();
}

}  // namespace

std::vector<RunFigures> simulate_runs(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                      const PredictionSetup& setup, const DataflowRegistry& registry) {
  std::vector<std::string> replies(runs.size());
  if (setup.workers <= 1 || runs.size() <= 1) {
    for (std::size_t i = 0; i < runs.size(); ++i) replies[i] = simulate_one(ref, runs[i], setup, registry);
  } else {
    WorkerPool pool(
        [&](const std::string& index) { return simulate_one(ref, runs[std::stoul(index)], setup, registry); },
        setup.workers);
    std::vector<std::string> inputs;
    for (std::size_t i = 0; i < runs.size(); ++i) inputs.push_back(std::to_string(i));
    std::vector<TaskOutcome> outcomes = pool.run(inputs);
    for (std::size_t i = 0; i < runs.size(); ++i)
      replies[i] = outcomes[i].ok ? outcomes[i].output : "ethe calibration worker " + outcomes[i].failure;
  }
  // Input errors first, then others; among them the run whose first user comes first in the file.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return first_user_position(ref, runs[a]) < first_user_position(ref, runs[b]);
  });
  for (char kind : {'i', 'e'})
    for (std::size_t i : order)
      if (!replies[i].empty() && replies[i][0] == kind) {
        std::string message = run_users(ref, runs[i]) + ": " + replies[i].substr(1);
        if (kind == 'i') throw InputError(message);
        throw SimulationError(message);
      }
  std::vector<RunFigures> out(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (replies[i].size() != 1 + sizeof(RunFigures))
      throw SimulationError("no figures for " + run_users(ref, runs[i]));
    std::memcpy(&out[i], replies[i].data() + 1, sizeof(RunFigures));
  }
  return out;
}

namespace {

// Looks up the figures of a run among the simulated ones.
class FiguresByRun {
 public:
  FiguresByRun(const std::vector<ReferenceRun>& runs, const std::vector<RunFigures>& figures) {
    for (std::size_t i = 0; i < runs.size(); ++i) by_run_[runs[i]] = &figures[i];
  }
  const RunFigures& operator()(const ReferenceRun& run) const {
    auto found = by_run_.find(run);
    if (found == by_run_.end()) throw SimulationError("no simulation for " + run.describe());
    return *found->second;
  }

 private:
  std::map<ReferenceRun, const RunFigures*> by_run_;
};

}  // namespace

std::string run_users(const ReferenceData& ref, const ReferenceRun& run) {
  std::vector<std::string> ids = ref.users_of(run);
  std::string names;
  for (const std::string& id : ids) names += (names.empty() ? "" : ", ") + id;
  return (ids.size() == 1 ? "target " : "targets ") + names + " (run " + run.describe() + ")";
}

std::vector<Prediction> predict(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                const std::vector<RunFigures>& figures) {
  FiguresByRun of(runs, figures);
  std::vector<Prediction> out;
  for (const ReferenceTarget& t : ref.targets) {
    Prediction p;
    p.target = &t;
    const RunFigures& f = of(t.run);
    switch (t.kind) {
      case TargetKind::tpot_ms: p.predicted = f.tpot_us / 1000.0; break;
      case TargetKind::reduction_vs_dense:
      case TargetKind::reduction_vs_previous: p.predicted = 1.0 - f.tpot_us / of(t.baseline).tpot_us; break;
      case TargetKind::active_us:
        p.predicted = t.engine == "dma" ? f.dma_active_us : f.active_us[engine_index(t.engine)];
        break;
      case TargetKind::instructions: p.predicted = f.instructions[engine_index(t.engine)]; break;
      case TargetKind::hbm_read_change: p.predicted = f.hbm_read_bytes / of(t.baseline).hbm_read_bytes - 1.0; break;
      case TargetKind::step_time_ratio: p.predicted = f.tpot_us / of(t.baseline).tpot_us; break;
      case TargetKind::attention_share: p.predicted = f.attention_share; break;
    }
    p.error = t.absolute_tolerance() ? p.predicted - t.value : (p.predicted - t.value) / t.value;
    p.pass = std::fabs(p.error) <= t.tolerance() + 1e-12;
    out.push_back(p);
  }
  return out;
}

std::vector<FactCheck> check_facts(const ReferenceData& ref, const std::vector<ReferenceRun>& runs,
                                   const std::vector<RunFigures>& figures, const std::vector<Prediction>& predictions) {
  FiguresByRun of(runs, figures);
  auto predicted = [&](const std::string& id) {
    for (const Prediction& p : predictions)
      if (p.target->id == id) return p.predicted;
    throw SimulationError("no prediction for target " + id);
  };
  double weight_share = -1;  // loaded once, when a check asks for it
  std::vector<FactCheck> out;
  char text[64];
  for (const ReferenceFact& fact : ref.facts) {
    if (!fact.checked()) continue;
    FactCheck c;
    c.fact = &fact;
    c.holds = true;
    for (const FactCheckSpec& spec : fact.checks) {
      double value = 0;
      bool ok = false;
      std::string shown;
      switch (spec.metric) {
        case FactMetric::attention_share:
        case FactMetric::down_dma_overlap:
          value = spec.metric == FactMetric::attention_share ? of(spec.run).attention_share : of(spec.run).down_dma_overlap;
          ok = spec.holds(value);
          std::snprintf(text, sizeof text, "%.1f%%", value * 100);
          shown = text;
          break;
        case FactMetric::attention_weight_share:
          if (weight_share < 0) weight_share = load_model(resolve_model(ref.model)).attention_weight_share();
          value = weight_share;
          ok = spec.holds(value);
          std::snprintf(text, sizeof text, "%.2f%%", value * 100);
          shown = text;
          break;
        case FactMetric::critical_engine: {
          // As a device profile sees the path: a collective's transfers run on the DMA engines (the same reading
          // as the DMA-active targets), so its time counts as DMA; the split is shown.
          std::array<double, kEngineCount> us = of(spec.run).critical_us;
          const double dma = us[static_cast<int>(Engine::dma)], collective = us[static_cast<int>(Engine::collective)];
          us[static_cast<int>(Engine::dma)] += collective;
          us[static_cast<int>(Engine::collective)] = 0;
          int top = 0;
          for (int e = 1; e < kEngineCount; ++e)
            if (us[e] > us[top]) top = e;
          value = top;
          shown = engine_name(static_cast<Engine>(top));
          ok = shown == spec.equals;
          if (top == static_cast<int>(Engine::dma) && collective > 0) {
            std::snprintf(text, sizeof text, " (%.0f + collective %.0f us)", dma, collective);
            shown += text;
          }
          break;
        }
        case FactMetric::targets_positive: {
          ok = true;
          value = 1e300;
          for (const std::string& id : spec.targets) value = std::min(value, predicted(id));
          ok = value > 0;
          std::snprintf(text, sizeof text, "min %.4g", value);
          shown = text;
          break;
        }
        case FactMetric::target_ratio:
          value = predicted(spec.targets[0]) / predicted(spec.targets[1]);
          ok = spec.holds(value);
          std::snprintf(text, sizeof text, "%.3g", value);
          shown = text;
          break;
        case FactMetric::target_less:
          value = predicted(spec.targets[0]) - predicted(spec.targets[1]);
          ok = value < 0;
          std::snprintf(text, sizeof text, "%.4g < %.4g", predicted(spec.targets[0]), predicted(spec.targets[1]));
          shown = text;
          break;
      }
      c.simulated.push_back(value);
      c.shown.push_back(shown);
      c.check_holds.push_back(ok);
      c.holds = c.holds && ok;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace stasim
