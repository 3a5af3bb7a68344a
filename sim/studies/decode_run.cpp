#include "sim/studies/decode_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

#include "sim/core/input_error.hpp"
#include "sim/core/memory_budget.hpp"
#include "sim/kernel/critical_path.hpp"
#include "sim/kernel/simulate.hpp"
#include "sim/studies/config_paths.hpp"
#include "sim/studies/request_switches.hpp"

namespace stasim {
namespace {

double us(Picoseconds ps) { return static_cast<double>(ps) / 1e6; }

// Rounds to the nanosecond for stable JSON (times are exact picoseconds underneath).
double us3(Picoseconds ps) { return static_cast<double>((ps + 500) / 1000) / 1000.0; }

// A model at its documented bounds (1024 layers, 4096 experts, batch 64) passes every range check and still
// makes a graph of hundreds of millions of ops. One layer is built first and the whole step estimated from it
// (the first layer times the layer count), so such a step is refused before its graph exists; ScheduleGraph
// stops any builder at kMaxGraphOps anyway.
void check_graph_size(const DecodeRun& run, const DownSchedule& down, const Dataflow& dataflow) {
  const std::int64_t layers = run.options.layers > 0 ? run.options.layers : run.model.layers;
  if (layers <= 1) return;
  DataflowOptions probe = run.options;
  probe.layers = 1;
  probe.down = down;
  std::size_t one_layer = 0;
  try {
    one_layer = build_decode_step(run.model, run.deployment, run.representation, run.hw, probe, dataflow.routed).graph.size();
  } catch (const InputError&) {
    return;  // the real build reports it (or, with `auto`, another schedule may fit)
  }
  const double estimate = static_cast<double>(one_layer) * static_cast<double>(layers);
  if (estimate > static_cast<double>(kMaxGraphOps))
    throw InputError(run.model.source_file + ": " + std::to_string(layers) + " layers of " + run.model.name + " x " +
                     std::to_string(one_layer) + " ops for the first = about " +
                     std::to_string(static_cast<long long>(estimate)) + " ops, beyond the simulator's " +
                     std::to_string(kMaxGraphOps) + " (README \"Robustness\"): simulate fewer layers with --layers N");
}

// A built graph that fails validation because of a hardware value (every matmul beyond a max_moving_free of 1)
// gives one problem per op; the user changed one key, so the report is one line per hardware key: the key, the
// file it came from, the first op it breaks and how many more.
InputError per_hardware_key(const InputError& e, const DecodeRun& run) {
  std::map<std::string, std::pair<std::string, std::size_t>> by_key;  // key -> (first problem, count)
  std::vector<std::string> order, others;
  const std::string tag = std::string(" (") + kHardwareKeyTag;
  for (const std::string& p : e.problems()) {
    std::size_t at = p.rfind(tag);
    if (at == std::string::npos || p.back() != ')') {
      others.push_back(p);
      continue;
    }
    std::string key = p.substr(at + tag.size(), p.size() - 1 - at - tag.size());
    auto [it, fresh] = by_key.emplace(key, std::make_pair(p.substr(0, at), 0));
    if (fresh) order.push_back(key);
    ++it->second.second;
  }
  if (order.empty()) return e;
  std::vector<std::string> out;
  for (const std::string& key : order) {
    const auto& [first, count] = by_key[key];
    out.push_back(run.hw.file + ": " + key + ": the value makes the " + run.dataflow + " dataflow's ops invalid: " +
                  first + (count > 1 ? " (and " + std::to_string(count - 1) + " more ops)" : ""));
  }
  // "(and N more problems)" of a capped list is about the ops already summarized.
  for (const std::string& p : others)
    if (p.rfind("(and ", 0) != 0) out.push_back(p);
  return InputError(out);
}

// How the step's expert loop runs: "all" (every expert over all tokens), "experts" (each distinct expert once for
// its tokens: the hybrid with --group-routes, xla's per-expert kernels over the step) or "routes" (the selective
// kernel's (token, k) loop, each route loading its expert).
std::string expert_loop(const DecodeRun& run) {
  if (run.decode.experts.all_experts) return "all";
  if (run.options.group_routes || run.compiler_lowered) return "experts";
  return "routes";
}

}  // namespace

DecodeRun run_decode(const RunRequest& req, const DataflowRegistry& registry) {
  DecodeRun run;
  run.dataflow = req.dataflow;
  const Dataflow& dataflow = registry.find(req.dataflow);
  run.compiler_lowered = dataflow.compiler_lowered;
  std::vector<std::string> hw_sets, model_sets;
  for (const std::string& s : req.sets) {
    if (s.rfind("model.", 0) == 0) model_sets.push_back(s.substr(6));
    else hw_sets.push_back(s);
  }
  run.hw = load_hardware_config(req.hw, hw_sets);
  run.model = load_model(resolve_model(req.model), model_sets);
  run.deployment = run.model.deployment;
  if (req.batch) run.deployment.batch = *req.batch;
  if (req.tp) run.deployment.tp = *req.tp;
  if (req.context) run.deployment.context_tokens = *req.context;
  if (req.lnc) {
    run.deployment.lnc = *req.lnc;
    if (*req.lnc < 1 || *req.lnc > run.hw.device_cores)
      throw InputError("--lnc " + std::to_string(*req.lnc) + ": must be between 1 and the device's " +
                       std::to_string(run.hw.device_cores) + " cores");
    run.hw.lnc = static_cast<std::uint32_t>(*req.lnc);
  } else if (run.hw.lnc == 1) {
    // Hardware without logical cores (trn1's NC-v2): one core per rank is all it has, whatever lnc the model
    // was deployed with elsewhere, so the hardware's lnc is the run's (what --lnc's help says).
    run.deployment.lnc = 1;
  } else if (run.deployment.lnc != run.hw.lnc) {
    throw InputError(deployment_place(run.model, run.deployment, "deployment.lnc") + "deployment.lnc = " +
                     std::to_string(run.deployment.lnc) + " but " +
                     run.hw.file + " has lnc = " + std::to_string(run.hw.lnc) + "; pass --lnc to choose one (--lnc " +
                     std::to_string(run.hw.lnc) + ": the hardware's, --lnc " + std::to_string(run.deployment.lnc) + ": the model's)");
  }
  if (run.deployment.batch < 1 || run.deployment.batch > kMaxBatch)
    throw InputError((req.batch ? "--batch " + std::to_string(run.deployment.batch)
                                : deployment_place(run.model, run.deployment, "deployment.batch") + "deployment.batch " +
                                      std::to_string(run.deployment.batch)) +
                     ": must be between 1 and " + std::to_string(kMaxBatch) + " tokens per step");
  validate_deployment(run.model, run.deployment);
  run.representation = dataflow.representation(req.d, req.r, req.K);
  run.representation.validate(run.model, run.deployment);

  // Each switch sets its option (request_switches.hpp); a dataflow without the part a switch changes ignores it.
  for (const RequestSwitch& s : request_switches()) run.options.*s.option = s.on(req);
  // Only the hybrid's loop can share an expert between tokens: dense, w4a8 and xla keep theirs (the run reports
  // the loop that ran: experts.loop in the JSON).
  run.options.group_routes = run.options.group_routes && dataflow.groups_routes;
  run.options.layers = req.layers;
  run.options.routing_seed = req.routing_seed;
  if (req.fused_gate_up_exchange) {
    // Only where partial gate and up rows cross between cores: a gated model, two or more cores per rank, and an
    // expert kernel that splits H (xla runs its experts op by op, through HBM, without exchanges).
    const std::string why = !run.model.gated ? run.model.name + " has no gate projection (one partial per expert already)"
                            : run.hw.lnc < 2  ? "one core per rank (lnc " + std::to_string(run.hw.lnc) + ") exchanges nothing"
                            : run.model.experts <= 0 ? run.model.name + " has no routed experts"
                            : dataflow.compiler_lowered ? "the " + req.dataflow + " dataflow exchanges no partial sums (compiler-lowered: its experts run op by op through HBM)"
                            : req.split_top_k ? "with --split-top-k each core runs whole experts, so no partial rows cross"
                                                    : "";
    if (!why.empty()) throw InputError("--fused-gate-up-exchange: nothing to fuse: " + why);
  }
  if (req.split_top_k) {
    // Only a selective expert loop over two or more cores, with the top-k dividing evenly (the MX kernel asserts
    // K % cores == 0).
    const std::uint32_t lnc = run.hw.lnc;
    const std::string why =
        run.model.experts <= 0 ? run.model.name + " has no routed experts"
        : lnc < 2              ? "one core per rank (lnc " + std::to_string(lnc) + ") has nothing to split"
        : dataflow.compiler_lowered ? "the " + req.dataflow + " dataflow runs each expert as its own kernels over the step's tokens, not a loop the cores split"
        : req.all_experts       ? "--all-experts runs every expert on every core over its share of H"
        : run.model.top_k % lnc != 0
            ? run.model.name + " routes top-" + std::to_string(run.model.top_k) + ", which " + std::to_string(lnc) +
                  " cores cannot split evenly"
            : "";
    if (!why.empty()) throw InputError("--split-top-k: " + why);
  }
  if (req.all_experts && run.model.experts <= 0)
    throw InputError("--all-experts: " + run.model.name + " has no routed experts (dataflow " + req.dataflow +
                     " runs none), so there is no expert loop to run over all experts");
  if (req.fuse_projections && run.model.shared_experts == 0)
    throw InputError("--fuse-projections: nothing fuses on " + run.model.name +
                     ": fusion joins the router with shared-expert projections that read the same hidden state, "
                     "and this model has no shared experts (it applies to DeepSeek-V2-Lite and Nemotron-3-Nano)");
  if (!req.routes.empty()) {
    auto trace = std::make_shared<RoutingTrace>(read_routing_file(req.routes, run.model.experts));
    if (trace->tokens != run.deployment.batch)
      throw InputError(req.routes + ": " + std::to_string(trace->tokens) + " routed tokens but --batch is " +
                       std::to_string(run.deployment.batch) + "; the routing file needs one row per token of the batch");
    if (trace->top_k != run.model.top_k)
      throw InputError(req.routes + ": " + std::to_string(trace->top_k) + " experts per token but " + run.model.name +
                       " routes top-" + std::to_string(run.model.top_k));
    run.options.routes = trace;
  }
  if (req.layers < 0) throw InputError("--layers " + std::to_string(req.layers) + ": must not be negative");
  if (req.layers > run.model.layers)
    throw InputError("--layers " + std::to_string(req.layers) + ": " + run.model.name + " has " +
                     std::to_string(run.model.layers) + " layers (0 = all)");

  std::vector<DownSchedule> candidates;
  if (req.down == "auto") {
    run.down_auto = true;
    for (const char* name : {"weight-sbuf", "weight-psum", "activation-sbuf", "activation-psum"}) {
      DownSchedule s;
      parse_down_schedule(name, s);
      candidates.push_back(s);
    }
  } else {
    DownSchedule s;
    if (!parse_down_schedule(req.down, s))
      throw InputError("--down-schedule '" + req.down +
                       "': expected auto, weight-sbuf, weight-psum, activation-sbuf or activation-psum");
    candidates.push_back(s);
  }
  check_graph_size(run, candidates.front(), dataflow);
  bool have = false;
  std::string first_problem;
  for (const DownSchedule& s : candidates) {
    DataflowOptions options = run.options;
    options.down = s;
    DecodeGraph decode;
    SimResult result;
    try {
      decode = build_decode_step(run.model, run.deployment, run.representation, run.hw, options, dataflow.routed);
      result = simulate(decode.graph, run.hw);
    } catch (const InputError& raw) {
      const InputError e = per_hardware_key(raw, run);
      // `auto` keeps the schedules that fit this model and hardware; an explicit choice must fit.
      if (!run.down_auto) throw e;
      if (first_problem.empty()) first_problem = e.what();
      run.down_candidates_us.emplace_back(s.name(), -1.0);
      continue;
    }
    // A candidate's TPOT as reported: its device step and the host's part (the same for every candidate).
    if (run.down_auto) run.down_candidates_us.emplace_back(s.name(), us(result.total_ps) + run.hw.runtime.step_us);
    // Ties keep the earlier candidate, so the choice is deterministic.
    if (!have || result.total_ps < run.result.total_ps) {
      run.options = options;
      run.decode = std::move(decode);
      run.result = std::move(result);
      have = true;
    }
  }
  // Every candidate failed: the first reason is usually not about the schedule at all (e.g. a dataflow the
  // hardware cannot run), so it is reported as it is.
  if (!have) throw InputError(first_problem);
  run.host_step_ps = ps_from_ns(run.hw.runtime.step_us * 1000.0);
  return run;
}

double moe_block_us(const DecodeRun& run) {
  Picoseconds total = 0;
  int count = 0;
  for (const LayerSpan& span : run.decode.layers) {
    if (span.moe_output.empty()) continue;
    Picoseconds begin = 0, end = 0;
    for (OpId v : span.moe_input) begin = std::max(begin, run.result.ops[v].end_ps);
    for (OpId v : span.moe_output) end = std::max(end, run.result.ops[v].end_ps);
    total += end - begin;
    ++count;
  }
  return count ? us(total) / count : 0.0;
}

nlohmann::json decode_json(const DecodeRun& run) {
  using nlohmann::json;
  const SimResult& r = run.result;
  const ScheduleGraph& g = run.decode.graph;
  json doc;
  doc["dataflow"] = run.dataflow;
  doc["model"] = run.model.name;
  doc["hardware"] = run.hw.name;
  doc["representation"] = run.representation.describe();
  doc["deployment"] = {{"tp", run.deployment.tp}, {"lnc", run.deployment.lnc}, {"batch", run.deployment.batch},
                       {"context", run.deployment.context_tokens}};
  doc["layers"] = run.decode.layers.size();
  doc["experts"] = {{"mode", run.decode.experts.all_experts ? "all" : "selective"},
                    {"cores_split", to_string(run.decode.experts.shard)},
                    {"loop", expert_loop(run)},
                    {"distinct", run.decode.experts.size()}};
  doc["tpot_us"] = us3(run.tpot_ps());
  doc["device_step_us"] = us3(r.total_ps);
  doc["host_step_us"] = us3(run.host_step_ps);
  doc["us_per_token"] = us3(run.tpot_ps() / std::max<std::int64_t>(run.deployment.batch, 1));
  doc["tokens_per_s"] = run.tpot_ps() > 0 ? run.deployment.batch * 1e12 / static_cast<double>(run.tpot_ps()) : 0.0;
  doc["moe_block_us"] = std::round(moe_block_us(run) * 1000.0) / 1000.0;
  // Engine active per rank as the study's profile reports it: the sum over the rank's physical cores (README
  // "Engine active time"); the union (any core busy) and each core's figure beside it.
  auto per_core = [&](int e) {
    json cores = json::array();
    for (const auto& c : r.per_core) cores.push_back(us3(c[e].active_ps));
    return cores;
  };
  json engines = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    if (static_cast<Engine>(e) != Engine::dma)
      engines[engine_name(static_cast<Engine>(e))] = {{"active_us", us3(r.engines[e].active_sum_ps)},
                                                      {"active_us_sum", us3(r.engines[e].active_sum_ps)},
                                                      {"active_us_union", us3(r.engines[e].active_ps)},
                                                      {"active_us_per_core", per_core(e)},
                                                      {"instructions", r.engines[e].instructions}};
  doc["engines"] = engines;
  // DMA active keeps the profiler's meaning: at least one transfer of the rank in flight (the union).
  doc["dma"] = {{"active_us", us3(r.dma_active_ps)}, {"active_us_per_core", per_core(int(Engine::dma))},
                {"hbm_read_bytes", r.hbm_read_bytes}, {"hbm_write_bytes", r.hbm_write_bytes},
                {"transfers", r.dma_transfers}};
  json by_engine = json::object(), by_phase = json::object(), by_queue = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    by_engine[engine_name(static_cast<Engine>(e))] = us3(r.critical_path.by_engine_ps[e]);
  for (const auto& [phase, ps] : r.critical_path.by_phase_ps) by_phase[phase.empty() ? "untagged" : phase] = us3(ps);
  for (const auto& [queue, ps] : r.critical_path.by_dma_queue_ps) by_queue[queue] = us3(ps);
  doc["critical_path"] = {{"total_us", us3(r.critical_path.total_ps)}, {"by_engine_us", by_engine},
                          {"by_phase_us", by_phase}, {"by_dma_queue_us", by_queue}, {"wait_us", us3(r.critical_path.wait_ps)},
                          {"ops", r.critical_path.ops.size()}};
  doc["storage"] = {{"bits_per_weight", std::round(run.representation.bits_per_weight(run.model) * 1e4) / 1e4},
                    {"gate_up_shrink", std::round(run.representation.gate_up_shrink(run.model) * 1e4) / 1e4}};
  doc["down_schedule"] = {{"stationary", run.options.down.stationary == Stationary::weight ? "weight" : "activation"},
                          {"accumulate", run.options.down.accumulate == Accumulate::sbuf ? "sbuf" : "psum"},
                          {"auto", run.down_auto}};
  if (run.down_auto) {
    json cands = json::object();
    for (const auto& [name, t] : run.down_candidates_us)
      cands[name] = t < 0 ? nlohmann::json("does not fit") : nlohmann::json(std::round(t * 1000.0) / 1000.0);
    doc["down_schedule"]["candidates_tpot_us"] = cands;
  }
  doc["sbuf"] = {{"peak_bytes_per_partition", r.sbuf_peak_bytes_per_partition},
                 {"usable_bytes_per_partition", run.hw.sbuf.usable_bytes_per_partition()}};
  doc["psum"] = {{"peak_banks", r.psum_peak_banks}, {"banks", run.hw.psum.banks}};
  // No wall time: the same inputs give byte-identical JSON (the human summary prints the wall time).
  doc["sim"] = {{"ops", g.size()}};
  return doc;
}

void print_decode(std::ostream& out, const DecodeRun& run) {
  const SimResult& r = run.result;
  char line[256];
  out << run.model.name << " on " << run.hw.name << ", dataflow " << run.dataflow << " ("
      << run.representation.describe() << "), tp " << run.deployment.tp << ", lnc " << run.deployment.lnc
      << ", batch " << run.deployment.batch << ", " << run.decode.layers.size() << " layers\n";
  std::snprintf(line, sizeof line, "TPOT %.3f us (%.1f tokens/s) = device %.3f + host %.3f; MoE block %.3f us per layer\n",
                us(run.tpot_ps()), run.deployment.batch * 1e12 / static_cast<double>(std::max<Picoseconds>(run.tpot_ps(), 1)),
                us(r.total_ps), us(run.host_step_ps), moe_block_us(run));
  out << line;
  if (run.deployment.batch > 1 || run.decode.experts.all_experts) {
    const ExpertGroups& ex = run.decode.experts;
    const std::string loop = expert_loop(run);
    std::snprintf(line, sizeof line, "batch %lld: %.3f us per token; %s, cores split %s; %u distinct experts per MoE layer\n",
                  static_cast<long long>(run.deployment.batch), us(run.tpot_ps()) / static_cast<double>(run.deployment.batch),
                  loop == "all" ? "all-experts mode (every expert over all tokens)"
                  : loop == "routes"     ? "selective: each core loops over its (token, expert) routes"
                  : run.compiler_lowered ? "selective: each distinct expert runs as its own kernels over its tokens"
                                          : "selective: each core loads each distinct expert of its tokens once (--group-routes)",
                  ex.shard == ShardOn::tokens ? "the tokens" : ex.shard == ShardOn::top_k ? "each token's top-k" : "H", ex.size());
    out << line;
  }
  std::snprintf(line, sizeof line, "storage %.4f bits/weight, gate/up %.3fx smaller than BF16\n",
                run.representation.bits_per_weight(run.model), run.representation.gate_up_shrink(run.model));
  out << line;
  out << "down schedule " << run.options.down.name() << (run.down_auto ? " (auto:" : "");
  for (const auto& [name, t] : run.down_candidates_us) {
    if (t < 0) std::snprintf(line, sizeof line, " %s does-not-fit", name.c_str());
    else std::snprintf(line, sizeof line, " %s %.3f", name.c_str(), t);
    out << line;
  }
  out << (run.down_auto ? " us)\n\n" : "\n\n");
  std::snprintf(line, sizeof line, "%-10s %12s %7s %13s %12s\n", "engine", "active_us", "busy_%", "instructions", "critical_us");
  out << line;
  for (int e = 0; e < kEngineCount; ++e) {
    std::snprintf(line, sizeof line, "%-10s %12.3f %7.1f %13llu %12.3f\n", engine_name(static_cast<Engine>(e)),
                  us(e == int(Engine::dma) ? r.dma_active_ps : r.engines[e].active_sum_ps),
                  r.total_ps ? 100.0 * r.engines[e].active_ps / r.total_ps : 0.0,
                  static_cast<unsigned long long>(r.engines[e].instructions), us(r.critical_path.by_engine_ps[e]));
    out << line;
  }
  std::snprintf(line, sizeof line, "%-10s %12s %7s %13s %12.3f\n\n", "wait", "", "", "", us(r.critical_path.wait_ps));
  out << line;
  out << "critical path by phase (us):";
  for (const auto& [ps, phase] : longest_first(r.critical_path.by_phase_ps)) {
    std::snprintf(line, sizeof line, " %s %.3f", phase.c_str(), us(ps));
    out << line;
  }
  out << "\n";
  // The DMA queues the path runs through, longest first: the four longest, then the rest together.
  if (!r.critical_path.by_dma_queue_ps.empty()) {
    out << "critical path by DMA queue (us):";
    const auto queues = longest_first(r.critical_path.by_dma_queue_ps);
    Picoseconds rest = 0;
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if (i >= 4) {
        rest += queues[i].first;
        continue;
      }
      std::snprintf(line, sizeof line, " %s %.3f", queues[i].second.c_str(), us(queues[i].first));
      out << line;
    }
    if (queues.size() > 4) {
      std::snprintf(line, sizeof line, " (%zu more %.3f)", queues.size() - 4, us(rest));
      out << line;
    }
    out << "\n";
  }
  std::snprintf(line, sizeof line, "DMA active %.3f us, HBM read %.3f MB, written %.3f MB, %llu transfers\n",
                us(r.dma_active_ps), r.hbm_read_bytes / 1e6, r.hbm_write_bytes / 1e6,
                static_cast<unsigned long long>(r.dma_transfers));
  out << line;
  std::snprintf(line, sizeof line, "SBUF peak %llu of %llu bytes per partition; PSUM peak %u of %u banks; %zu ops simulated in %.1f ms\n",
                static_cast<unsigned long long>(r.sbuf_peak_bytes_per_partition),
                static_cast<unsigned long long>(run.hw.sbuf.usable_bytes_per_partition()), r.psum_peak_banks,
                run.hw.psum.banks, run.decode.graph.size(), r.wall_ms);
  out << line;
}

void print_comparison(std::ostream& out, const std::vector<DecodeRun>& runs) {
  if (runs.empty()) return;
  char line[512];
  const DecodeRun& base = runs[0];
  out << base.model.name << " on " << base.hw.name << ", tp " << base.deployment.tp << ", lnc " << base.deployment.lnc
      << ", batch " << base.deployment.batch << ", " << base.decode.layers.size() << " layers\n\n";
  std::snprintf(line, sizeof line, "%-10s %11s %8s %9s %10s %10s %10s %9s %8s %-16s %s\n", "dataflow", "tpot_us",
                "speedup", "moe_us", "bits/w", "dma_us", "hbm_MB", "gpsimd_n", "tensor%", "down", "critical engine");
  out << line;
  for (const DecodeRun& run : runs) {
    const SimResult& r = run.result;
    int top = 0;
    for (int e = 1; e < kEngineCount; ++e)
      if (r.critical_path.by_engine_ps[e] > r.critical_path.by_engine_ps[top]) top = e;
    std::snprintf(line, sizeof line, "%-10s %11.3f %8.3f %9.3f %10.4f %10.3f %10.3f %9llu %8.1f %-16s %s\n",
                  run.dataflow.c_str(), us(run.tpot_ps()), static_cast<double>(base.tpot_ps()) / std::max<Picoseconds>(run.tpot_ps(), 1),
                  moe_block_us(run), run.representation.bits_per_weight(run.model), us(r.dma_active_ps),
                  r.hbm_read_bytes / 1e6, static_cast<unsigned long long>(r.engines[int(Engine::gpsimd)].instructions),
                  r.total_ps ? 100.0 * r.engines[int(Engine::tensor)].active_ps / r.total_ps : 0.0,
                  run.options.down.name().c_str(), engine_name(static_cast<Engine>(top)));
    out << line;
  }
  // Where each step's time goes: the critical path by engine, engine-active time, and the SBUF/PSUM peaks.
  out << "\ncritical path by engine (us) / engine active (us)\n";
  std::snprintf(line, sizeof line, "%-10s", "dataflow");
  out << line;
  for (int e = 0; e < kEngineCount; ++e) {
    std::snprintf(line, sizeof line, " %21s", engine_name(static_cast<Engine>(e)));
    out << line;
  }
  std::snprintf(line, sizeof line, " %9s %12s %10s\n", "wait", "sbuf_peak_B", "psum_banks");
  out << line;
  for (const DecodeRun& run : runs) {
    const SimResult& r = run.result;
    std::snprintf(line, sizeof line, "%-10s", run.dataflow.c_str());
    out << line;
    for (int e = 0; e < kEngineCount; ++e) {
      std::snprintf(line, sizeof line, " %10.3f/%10.3f", us(r.critical_path.by_engine_ps[e]),
                    us(e == int(Engine::dma) ? r.dma_active_ps : r.engines[e].active_sum_ps));
      out << line;
    }
    std::snprintf(line, sizeof line, " %9.3f %12llu %10u\n", us(r.critical_path.wait_ps),
                  static_cast<unsigned long long>(r.sbuf_peak_bytes_per_partition), r.psum_peak_banks);
    out << line;
  }
  out << "\ncritical path by phase (us)\n";
  for (const DecodeRun& run : runs) {
    std::snprintf(line, sizeof line, "%-10s", run.dataflow.c_str());
    out << line;
    for (const auto& [ps, phase] : longest_first(run.result.critical_path.by_phase_ps)) {
      std::snprintf(line, sizeof line, " %s %.3f", phase.c_str(), us(ps));
      out << line;
    }
    out << "\n";
  }
}

}  // namespace stasim
