// The rows of a sweep's output: one per point, every input and the key results, as CSV (header + rows) or JSON
// lines, chosen by the file's extension (.jsonl / .json = JSON lines, anything else CSV). Cells are typed JSON
// values rounded once when the point ran, so reading a file back and writing it again gives the same bytes
// (which is what lets --resume and merge reuse rows). finalize() fills the columns that compare points:
// speedup_vs_dense (against the dense row of the same group), pareto (not dominated in bits/weight and TPOT
// within the group) and, for rows with an nmse (`sweep --weights`), pareto_quality (not dominated in NMSE and
// TPOT: the quality–latency front). A CSV is read by its header's column names, so older files still merge;
// besides the fixed columns there is one per --vary key (sim/studies/sweep_vary_columns.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace stasim {

using SweepRow = nlohmann::json;  // an object with the columns below (null = empty cell)

const std::vector<std::string>& sweep_columns();

bool is_jsonl_path(const std::string& path);
// A table file's name must say its format: InputError "OPTION PATH: ..." naming the extensions `accepted`
// (".csv", ".jsonl", ...) when its extension is another; "-" (stdout) passes. `--out x.parquet` is refused,
// not written as CSV under a name that says otherwise.
void check_table_extension(const std::string& option, const std::string& path, const std::vector<std::string>& accepted);
// The extensions of a sweep's output: .csv, and .jsonl or .json for JSON lines.
const std::vector<std::string>& sweep_output_extensions();

// One CSV record of typed cells (null = empty, strings as they are, numbers as JSON writes them) through the one
// CSV writer (sim/reports/csv_writer.hpp: quoted where a cell holds ',', '"', CR or LF; ends in LF).
std::string csv_json_record(const std::vector<nlohmann::json>& cells);

// A sweep output's rows and the 1-based line each came from.
struct SweepTable {
  std::vector<SweepRow> rows;
  std::vector<int> lines;
};

// Reads a sweep output (CSV or JSON lines); a missing file gives no rows. A file that is not regular, a row
// that is not an object of typed columns, a missing point/key/status, or a CSV line with the wrong number of
// cells is an InputError naming file:line; only a last line without its newline (a killed sweep's) is skipped.
SweepTable read_sweep_table(const std::string& path);
std::vector<SweepRow> read_sweep_rows(const std::string& path);
// Refuses parts (read from `paths`) whose rows come from different grids: a point index with two keys or a key
// with two indices.
void check_one_grid(const std::vector<SweepTable>& parts, const std::vector<std::string>& paths);
// A row as one line; a CSV line has a cell per `vary` key (sim/studies/sweep_vary_columns.hpp) after the
// `vary` cell, a JSON line a key per assignment of its own vary cell.
std::string row_line(const SweepRow& row, bool jsonl, const std::vector<std::string>& vary = {});
std::string csv_header(const std::vector<std::string>& vary = {});

// Sorts by point index then key, drops repeated keys (keeping the first), recomputes speedup_vs_dense and pareto.
void finalize(std::vector<SweepRow>& rows);

// Writes all rows atomically (a temporary file renamed over `path`, which must be new or a regular file).
void write_sweep_rows(const std::string& path, const std::vector<SweepRow>& rows);

}  // namespace stasim
