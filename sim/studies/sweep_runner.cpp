#include "sim/studies/sweep_runner.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "sim/core/input_error.hpp"
#include "sim/studies/decode_run.hpp"
#include "sim/studies/sweep_vary_columns.hpp"
#include "sim/studies/worker_pool.hpp"

namespace stasim {
namespace {

// value rounded to 1 / per_unit (e.g. 1000: three decimals); dividing the rounded integer gives the double
// nearest the decimal, so the JSON and CSV text is the short decimal.
double round_to(double value, double per_unit) { return std::round(value * per_unit) / per_unit; }
double us(Picoseconds ps) { return round_to(static_cast<double>(ps) / 1e6, 1000.0); }

constexpr std::size_t kReasonChars = 2000;  // a reason is a line of the table, not a log

SweepRow inputs_row(const SweepPoint& p) {
  SweepRow row = nlohmann::json::object();
  for (const std::string& c : sweep_columns()) row[c] = nullptr;
  row["point"] = p.index;
  row["key"] = p.key();
  row["model"] = p.model;
  row["dataflow"] = p.dataflow;
  row["hw"] = p.hw;
  row["batch"] = p.batch;
  if (p.uses_d) row["d"] = p.d;
  if (p.uses_r) row["r"] = p.r;
  if (p.uses_K) row["K"] = p.K;
  if (!p.sets.empty()) row["vary"] = p.vary_text();
  add_vary_columns(row);
  row["layers"] = p.layers;
  row["down_schedule"] = p.down;
  if (!p.weights.empty()) row["weights"] = p.weights;
  return row;
}

SweepRow failed(SweepRow row, const char* status, const std::string& reason) {
  row["status"] = status;
  row["reason"] = reason.substr(0, kReasonChars);
  return row;
}

}  // namespace

SweepRow run_point(const SweepPoint& p, const DataflowRegistry& registry) {
  SweepRow row = inputs_row(p);
  try {
    DecodeRun run = run_decode(p.request(), registry);
    const SimResult& r = run.result;
    row["status"] = "ok";
    // The layers simulated, not the request (0 = all): what a row's TPOT covers, read without the model's YAML.
    row["layers"] = run.decode.layers.size();
    row["tpot_us"] = us(run.tpot_ps());
    row["bits_per_weight"] = round_to(run.representation.bits_per_weight(run.model), 10000.0);
    int top = 0;
    for (int e = 1; e < kEngineCount; ++e)
      if (r.critical_path.by_engine_ps[e] > r.critical_path.by_engine_ps[top]) top = e;
    row["critical_engine"] = engine_name(static_cast<Engine>(top));
    for (Engine e : {Engine::tensor, Engine::vector, Engine::scalar, Engine::gpsimd, Engine::collective})
      row[std::string(engine_name(e)) + "_active_us"] = us(r.engines[static_cast<int>(e)].active_sum_ps);
    row["dma_active_us"] = us(r.dma_active_ps);
    row["hbm_read_bytes"] = r.hbm_read_bytes;
    row["hbm_write_bytes"] = r.hbm_write_bytes;
    row["gpsimd_instructions"] = r.engines[static_cast<int>(Engine::gpsimd)].instructions;
  } catch (const InputError& e) {
    return failed(row, "invalid", e.what());
  } catch (const SimulationError& e) {
    return failed(row, "error", e.what());
  } catch (const std::exception& e) {
    return failed(row, "error", std::string("internal error: ") + e.what());
  }
  return row;
}

void run_points(const std::vector<SweepPoint>& points, int jobs, const SweepProgress& progress,
                const DataflowRegistry& registry, const std::function<void(SweepRow)>& on_row, double point_time_limit_s,
                const std::function<void()>& on_wait) {
  std::size_t done = 0, ok = 0, invalid = 0, errors = 0;
  const auto begin = std::chrono::steady_clock::now();
  double last_line_s = 0;
  auto report = [&](bool force) {
    if (progress.mode == SweepProgress::Mode::none) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const double eta = done ? elapsed / static_cast<double>(done) * static_cast<double>(points.size() - done) : 0.0;
    if (progress.mode == SweepProgress::Mode::redraw) {
      std::fprintf(stderr, "\rsweep: %zu/%zu points, %.1f s elapsed, ETA %.0f s   ", done, points.size(), elapsed, eta);
    } else {
      // A log (a batch job's stderr file) gets whole lines, at most one per interval: no carriage returns.
      if (!force && elapsed - last_line_s < progress.every_s) return;
      last_line_s = elapsed;
      std::fprintf(stderr, "sweep: %zu/%zu points (ok %zu, invalid %zu, error %zu), %.1f s elapsed, ETA %.0f s\n", done,
                   points.size(), ok, invalid, errors, elapsed, eta);
    }
    std::fflush(stderr);
  };
  if (progress.mode == SweepProgress::Mode::redraw) report(true);
  WorkerPool pool([&](const std::string& index) { return run_point(points[std::stoul(index)], registry).dump(); },
                  jobs, point_time_limit_s);
  if (on_wait) pool.on_wait(on_wait);
  std::vector<std::string> inputs;
  inputs.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) inputs.push_back(std::to_string(i));
  pool.run(inputs, [&](std::size_t i, TaskOutcome outcome) {
    SweepRow row;
    bool reported = outcome.ok;
    if (reported) {
      try {
        row = nlohmann::json::parse(outcome.output);
      } catch (const nlohmann::json::exception&) {
        reported = false;
        outcome.failure = "sent a row that is not JSON";
      }
    }
    if (!reported) row = failed(inputs_row(points[i]), "error", "the point's process " + outcome.failure);
    ++done;
    const std::string status = row.value("status", std::string());
    ok += status == "ok";
    invalid += status == "invalid";
    errors += status == "error";
    on_row(std::move(row));
    report(false);
  });
  if (progress.mode == SweepProgress::Mode::redraw) std::fputc('\n', stderr);
}

void run_points(const std::vector<SweepPoint>& points, int jobs, bool progress, const DataflowRegistry& registry,
                const std::function<void(SweepRow)>& on_row, double point_time_limit_s,
                const std::function<void()>& on_wait) {
  SweepProgress mode;
  mode.mode = progress ? SweepProgress::Mode::redraw : SweepProgress::Mode::none;
  run_points(points, jobs, mode, registry, on_row, point_time_limit_s, on_wait);
}

}  // namespace stasim
