// The regression of schedule timing: a fixed set of cases (every shipped model x {dense, cardan} at batch 1,
// two layers, trn3, the weight-sbuf down schedule, plus every hand schedule in configs/schedules/), each
// reduced to a stable JSON summary of integer picoseconds and counts. tests/golden/ holds one file per case;
// a test re-simulates and compares exactly, `stasim goldens --update` (tools/update-goldens) rewrites them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"

namespace stasim {

struct GoldenCase {
  std::string name;       // file stem in tests/golden/: "qwen3-30b-a3b.cardan", "schedule.expert_ffn_tile"
  std::string model;      // decode cases
  std::string dataflow;
  std::string schedule;   // schedule cases: path of the YAML
};

// The cases, in name order, discovered from `source_dir`/configs/models and configs/schedules.
std::vector<GoldenCase> golden_cases(const std::string& source_dir);

// Simulates one case (in this process) and returns its summary. The hardware is always configs/hw/trn3.yaml
// as shipped, named explicitly, so a change of the CLI's default hardware does not move the goldens.
nlohmann::json golden_summary(const GoldenCase& c, const std::string& source_dir, const DataflowRegistry& registry);

// Every leaf that differs between a golden and a fresh summary, as "path: golden X, now Y" (also leaves
// present on one side only); empty when they are equal.
std::vector<std::string> golden_diff(const nlohmann::json& golden, const nlohmann::json& now);

// One row of the "what moved" table: ops, TPOT and critical path per engine, golden -> now.
std::string golden_moved_row(const std::string& name, const nlohmann::json& golden, const nlohmann::json& now);
std::string golden_moved_header();

}  // namespace stasim
