// Writers for a SimResult: the stable JSON document of `--json` (sorted keys, times in ns with picosecond
// precision) and the human summary printed on stdout.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "sim/core/hardware_config.hpp"
#include "sim/core/schedule_graph.hpp"
#include "sim/core/sim_result.hpp"

namespace stasim {

std::string bound_by_text(const ScheduleGraph& graph, const OpTiming& t);
nlohmann::json result_json(const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& result,
                           bool include_ops = true);
void print_summary(std::ostream& out, const ScheduleGraph& graph, const HardwareConfig& hw, const SimResult& result);
// Writes JSON to `path` ("-" = stdout); throws InputError when the file cannot be written.
void write_json_file(const std::string& path, const nlohmann::json& doc);
// Writes `bytes` to `path` ("-" = stdout); InputError "PATH: cannot write the WHAT file" when it cannot.
void write_text_file(const std::string& path, const std::string& bytes, const std::string& what = "output");

}  // namespace stasim
