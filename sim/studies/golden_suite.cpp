#include "sim/studies/golden_suite.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_yaml.hpp"
#include "sim/kernel/simulate.hpp"
#include "sim/studies/decode_run.hpp"

namespace stasim {
namespace {

using nlohmann::json;

constexpr const char* kGoldenDataflows[] = {"cardan", "dense"};
constexpr std::int64_t kGoldenLayers = 2;
constexpr const char* kGoldenDown = "weight-sbuf";

std::vector<std::string> yaml_stems(const std::filesystem::path& folder) {
  std::vector<std::string> stems;
  if (!std::filesystem::is_directory(folder)) return stems;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".yaml") stems.push_back(entry.path().stem().string());
  std::sort(stems.begin(), stems.end());
  return stems;
}

// FNV-1a over every op's (start, end, bound kind, bound op): any move of any op changes it, so the golden also
// catches a shift that leaves every total unchanged.
std::string timing_digest(const std::vector<OpTiming>& ops) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (value >> (8 * byte)) & 0xFF;
      h *= 1099511628211ull;
    }
  };
  for (const OpTiming& t : ops) {
    mix(static_cast<std::uint64_t>(t.start_ps));
    mix(static_cast<std::uint64_t>(t.end_ps));
    mix(static_cast<std::uint64_t>(t.bound));
    mix(t.bound_op);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

json result_summary(const ScheduleGraph& graph, const SimResult& r) {
  json doc;
  doc["ops"] = graph.size();
  doc["total_ps"] = r.total_ps;
  json engines = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    engines[engine_name(static_cast<Engine>(e))] = {{"active_ps", r.engines[e].active_ps},
                                                    {"instructions", r.engines[e].instructions}};
  doc["engines"] = engines;
  doc["dma"] = {{"active_ps", r.dma_active_ps}, {"hbm_read_bytes", r.hbm_read_bytes},
                {"hbm_write_bytes", r.hbm_write_bytes}, {"transfers", r.dma_transfers}};
  doc["sbuf_peak_bytes_per_partition"] = r.sbuf_peak_bytes_per_partition;
  doc["psum_peak_banks"] = r.psum_peak_banks;
  json by_engine = json::object(), by_phase = json::object();
  for (int e = 0; e < kEngineCount; ++e)
    by_engine[engine_name(static_cast<Engine>(e))] = r.critical_path.by_engine_ps[e];
  for (const auto& [phase, ps] : r.critical_path.by_phase_ps) by_phase[phase.empty() ? "untagged" : phase] = ps;
  doc["critical_path"] = {{"total_ps", r.critical_path.total_ps}, {"ops", r.critical_path.ops.size()},
                          {"wait_ps", r.critical_path.wait_ps}, {"by_engine_ps", by_engine},
                          {"by_phase_ps", by_phase}, {"by_dma_queue_ps", r.critical_path.by_dma_queue_ps}};
  doc["op_timings_fnv1a"] = timing_digest(r.ops);
  return doc;
}

void diff_into(const json& golden, const json& now, const std::string& path, std::vector<std::string>& out) {
  if (golden.is_object() && now.is_object()) {
    for (const auto& [key, value] : golden.items()) {
      std::string sub = path.empty() ? key : path + "." + key;
      if (!now.contains(key)) out.push_back(sub + ": golden " + value.dump() + ", now missing");
      else diff_into(value, now[key], sub, out);
    }
    for (const auto& [key, value] : now.items())
      if (!golden.contains(key)) out.push_back((path.empty() ? key : path + "." + key) + ": not in the golden, now " + value.dump());
    return;
  }
  if (golden != now) out.push_back(path + ": golden " + golden.dump() + ", now " + now.dump());
}

double us_of(const json& ps) { return ps.is_number() ? ps.get<double>() / 1e6 : 0.0; }

}  // namespace

std::vector<GoldenCase> golden_cases(const std::string& source_dir) {
  namespace fs = std::filesystem;
  std::vector<GoldenCase> cases;
  for (const std::string& model : yaml_stems(fs::path(source_dir) / "configs/models"))
    for (const char* dataflow : kGoldenDataflows) cases.push_back({model + "." + dataflow, model, dataflow, ""});
  for (const std::string& schedule : yaml_stems(fs::path(source_dir) / "configs/schedules"))
    cases.push_back({"schedule." + schedule, "", "",
                     (fs::path(source_dir) / "configs/schedules" / (schedule + ".yaml")).string()});
  std::sort(cases.begin(), cases.end(), [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return cases;
}

json golden_summary(const GoldenCase& c, const std::string& source_dir, const DataflowRegistry& registry) {
  std::string hw_path = (std::filesystem::path(source_dir) / "configs/hw/trn3.yaml").string();
  if (!c.schedule.empty()) {
    HardwareConfig hw = load_hardware(hw_path);
    LoadedSchedule schedule = load_schedule(c.schedule);
    SimResult r = simulate(schedule.graph, hw, schedule.locator());
    json doc = result_summary(schedule.graph, r);
    doc["case"] = {{"schedule", std::filesystem::path(c.schedule).filename().string()}, {"hw", "trn3"}};
    return doc;
  }
  RunRequest req;
  req.model = (std::filesystem::path(source_dir) / "configs/models" / (c.model + ".yaml")).string();
  req.hw = hw_path;
  req.dataflow = c.dataflow;
  req.batch = 1;
  req.layers = kGoldenLayers;
  req.down = kGoldenDown;
  DecodeRun run = run_decode(req, registry);
  json doc = result_summary(run.decode.graph, run.result);
  doc["case"] = {{"model", c.model}, {"dataflow", c.dataflow}, {"hw", "trn3"}, {"batch", 1},
                 {"layers", kGoldenLayers}, {"down_schedule", kGoldenDown}, {"d", req.d}, {"r", req.r}, {"K", req.K}};
  return doc;
}

std::vector<std::string> golden_diff(const json& golden, const json& now) {
  std::vector<std::string> out;
  diff_into(golden, now, "", out);
  return out;
}

std::string golden_moved_header() {
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %16s %30s  %s", "case", "ops", "tpot_us", "critical path by engine (us)");
  return line;
}

std::string golden_moved_row(const std::string& name, const json& golden, const json& now) {
  auto get = [](const json& doc, const char* key) { return doc.contains(key) ? doc[key] : json(); };
  auto ops_of = [&get](const json& doc) { return get(doc, "ops").is_null() ? std::string("-") : get(doc, "ops").dump(); };
  std::string ops = golden.is_null() ? "new " + ops_of(now)
                    : now.is_null()  ? ops_of(golden) + " removed"
                                     : ops_of(golden) + " -> " + ops_of(now);
  double before = us_of(get(golden, "total_ps")), after = us_of(get(now, "total_ps"));
  char tpot[96];
  if (golden.is_null()) std::snprintf(tpot, sizeof tpot, "new %.3f", after);
  else if (now.is_null()) std::snprintf(tpot, sizeof tpot, "%.3f removed", before);
  else std::snprintf(tpot, sizeof tpot, "%.3f -> %.3f (%+.2f%%)", before, after,
                     before > 0 ? 100.0 * (after - before) / before : 0.0);
  std::string engines;
  for (int e = 0; e < kEngineCount; ++e) {
    const char* engine = engine_name(static_cast<Engine>(e));
    json g = golden.is_object() ? golden.value("/critical_path/by_engine_ps"_json_pointer, json::object()) : json::object();
    json n = now.is_object() ? now.value("/critical_path/by_engine_ps"_json_pointer, json::object()) : json::object();
    json a = g.value(engine, json(0)), b = n.value(engine, json(0));
    if (a == b) continue;
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.3f -> %.3f", engines.empty() ? "" : ", ", engine, us_of(a), us_of(b));
    engines += part;
  }
  if (engines.empty()) engines = "unchanged";
  char line[512];
  std::snprintf(line, sizeof line, "%-32s %16s %30s  %s", name.c_str(), ops.c_str(), tpot, engines.c_str());
  return line;
}

}  // namespace stasim
