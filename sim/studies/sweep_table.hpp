// The rows of a sweep's output: one per point, every input and the key results, as CSV (header + rows) or JSON
// lines, chosen by the file's extension (.jsonl / .json = JSON lines, anything else CSV). Cells are typed JSON
// values rounded once when the point ran, so reading a file back and writing it again gives the same bytes
// (which is what lets --resume and merge reuse rows). finalize() fills the columns that compare points:
// speedup_vs_dense (against the dense row of the same group), pareto (not dominated in bits/weight and TPOT
// within the group) and, for rows with an nmse (`sweep --weights`), pareto_quality (not dominated in NMSE and
// TPOT: the quality–latency front). A CSV is read by its header's column names, so older files still merge.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace stasim {

using SweepRow = nlohmann::json;  // an object with the columns below (null = empty cell)

const std::vector<std::string>& sweep_columns();

bool is_jsonl_path(const std::string& path);

// Reads a sweep output (CSV or JSON lines); a missing file gives no rows. InputError for a malformed file.
std::vector<SweepRow> read_sweep_rows(const std::string& path);
std::string row_line(const SweepRow& row, bool jsonl);
std::string csv_header();

// Sorts by point index then key, drops repeated keys (keeping the first), recomputes speedup_vs_dense and pareto.
void finalize(std::vector<SweepRow>& rows);

// Writes all rows atomically (a temporary file renamed over `path`).
void write_sweep_rows(const std::string& path, const std::vector<SweepRow>& rows);

}  // namespace stasim
