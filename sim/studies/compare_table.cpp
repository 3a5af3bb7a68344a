#include "sim/studies/compare_table.hpp"

#include <algorithm>
#include <cmath>

#include "sim/studies/sweep_table.hpp"

namespace stasim {
namespace {

double rounded(double value, double per_unit) { return std::round(value * per_unit) / per_unit; }
double us3(Picoseconds ps) { return rounded(static_cast<double>(ps) / 1e6, 1000.0); }

}  // namespace

std::string comparison_csv(const std::vector<DecodeRun>& runs) {
  if (runs.empty()) return "";
  const DecodeRun& base = runs.front();
  std::string text = csv_json_record({"model", "hw", "tp", "lnc", "batch", "layers", "dataflow", "tpot_us",
                                 "speedup_vs_" + base.dataflow, "moe_block_us", "bits_per_weight", "dma_active_us",
                                 "hbm_read_bytes", "gpsimd_instructions", "tensor_busy_pct", "down_schedule",
                                 "critical_engine"});
  for (const DecodeRun& run : runs) {
    const SimResult& r = run.result;
    const nlohmann::json doc = decode_json(run);
    int top = 0;  // the engine with the most critical-path time, as the printed table names it
    for (int e = 1; e < kEngineCount; ++e)
      if (r.critical_path.by_engine_ps[e] > r.critical_path.by_engine_ps[top]) top = e;
    const double speedup = static_cast<double>(base.tpot_ps()) / static_cast<double>(std::max<Picoseconds>(run.tpot_ps(), 1));
    const double tensor_pct = r.total_ps ? 100.0 * static_cast<double>(r.engines[int(Engine::tensor)].active_ps) / static_cast<double>(r.total_ps) : 0.0;
    text += csv_json_record({run.model.name, run.hw.name, run.deployment.tp, run.deployment.lnc, run.deployment.batch,
                        run.decode.layers.size(), run.dataflow, us3(run.tpot_ps()), rounded(speedup, 10000.0),
                        doc["moe_block_us"], rounded(run.representation.bits_per_weight(run.model), 10000.0),
                        us3(r.dma_active_ps), r.hbm_read_bytes, r.engines[int(Engine::gpsimd)].instructions,
                        rounded(tensor_pct, 10.0), run.options.down.name(), engine_name(static_cast<Engine>(top))});
  }
  return text;
}

}  // namespace stasim
