#include "sim/studies/sweep_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "sim/core/input_error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/output_file.hpp"
#include "sim/reports/csv_reader.hpp"
#include "sim/reports/csv_writer.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_vary_columns.hpp"

namespace stasim {
namespace {

enum class Cell { text, number };

struct Column {
  const char* name;
  Cell type;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> list = {
      {"point", Cell::number}, {"key", Cell::text}, {"model", Cell::text}, {"dataflow", Cell::text},
      {"hw", Cell::text}, {"batch", Cell::number}, {"d", Cell::number}, {"r", Cell::number}, {"K", Cell::number},
      {"vary", Cell::text}, {"layers", Cell::number}, {"down_schedule", Cell::text}, {"weights", Cell::text},
      {"status", Cell::text}, {"reason", Cell::text}, {"tpot_us", Cell::number}, {"bits_per_weight", Cell::number},
      {"nmse", Cell::number}, {"quality_bits_per_weight", Cell::number}, {"speedup_vs_dense", Cell::number}, {"critical_engine", Cell::text}, {"tensor_active_us", Cell::number},
      {"vector_active_us", Cell::number}, {"scalar_active_us", Cell::number}, {"gpsimd_active_us", Cell::number},
      {"collective_active_us", Cell::number}, {"dma_active_us", Cell::number}, {"hbm_read_bytes", Cell::number},
      {"hbm_write_bytes", Cell::number}, {"gpsimd_instructions", Cell::number}, {"pareto", Cell::number},
      {"pareto_quality", Cell::number},
  };
  return list;
}

// A cell's text before CSV quoting: empty for null, a string as it is, anything else as JSON.
std::string cell_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string csv_json_record(const std::vector<nlohmann::json>& cells) {
  std::vector<std::string> fields;
  fields.reserve(cells.size());
  for (const nlohmann::json& cell : cells) fields.push_back(cell_text(cell));
  return csv_record(fields);
}

namespace {

// value rounded to 1 / per_unit (e.g. 1000: three decimals); dividing the rounded integer gives the double
// nearest the decimal, so the JSON and CSV text is the short decimal.
double round_to(double value, double per_unit) { return std::round(value * per_unit) / per_unit; }

}  // namespace

const std::vector<std::string>& sweep_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Column& c : columns()) out.push_back(c.name);
    return out;
  }();
  return names;
}

bool is_jsonl_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".jsonl" || ext == ".json";
}

void check_table_extension(const std::string& option, const std::string& path, const std::vector<std::string>& accepted) {
  if (path.empty() || path == "-") return;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (std::find(accepted.begin(), accepted.end(), ext) != accepted.end()) return;
  std::string names;
  for (std::size_t i = 0; i < accepted.size(); ++i)
    names += (i == 0 ? "" : i + 1 == accepted.size() ? " or " : ", ") + accepted[i];
  throw InputError(option + " " + path + ": " + (ext.empty() ? "no extension" : "unknown extension '" + ext + "'") +
                   "; the format is chosen by the extension: " + names);
}

const std::vector<std::string>& sweep_output_extensions() {
  static const std::vector<std::string> list = {".csv", ".jsonl", ".json"};
  return list;
}

// The CSV columns: the fixed ones with the vary keys right after `vary`.
std::vector<std::string> csv_names(const std::vector<std::string>& vary) {
  std::vector<std::string> out;
  for (const Column& c : columns()) {
    out.push_back(c.name);
    if (std::string(c.name) == "vary") out.insert(out.end(), vary.begin(), vary.end());
  }
  return out;
}

std::string csv_header(const std::vector<std::string>& vary) {
  std::string record = csv_record(csv_names(vary));
  record.pop_back();  // the callers add the line end
  return record;
}

std::string row_line(const SweepRow& row, bool jsonl, const std::vector<std::string>& vary) {
  SweepRow full = row;
  add_vary_columns(full);
  if (jsonl) {
    nlohmann::json ordered = nlohmann::json::object();
    for (const Column& c : columns()) ordered[c.name] = full.value(c.name, nlohmann::json());
    for (const auto& assignment : vary_assignments(full.value("vary", nlohmann::json())))
      ordered[assignment.first] = full[assignment.first];
    return ordered.dump();
  }
  std::vector<std::string> cells;
  for (const std::string& name : csv_names(vary)) cells.push_back(cell_text(full.value(name, nlohmann::json())));
  std::string record = csv_record(cells);
  record.pop_back();  // the callers add the line end
  return record;
}

namespace {

const Column* find_column(const std::string& name) {
  auto known = std::find_if(columns().begin(), columns().end(), [&](const Column& c) { return name == c.name; });
  return known == columns().end() ? nullptr : &*known;
}

// What finalize(), --resume and merge rely on: a point index, a key, a known status, and for an ok row its two
// figures. A row that lacks them is a corrupt or foreign file, reported at its line rather than thrown later as
// a JSON type error.
void check_row(const SweepRow& row, const std::string& where) {
  auto text = [&](const char* name) { return row.contains(name) && row[name].is_string(); };
  auto number = [&](const char* name) { return row.contains(name) && row[name].is_number(); };
  if (!row.contains("point") || !row["point"].is_number_unsigned())
    throw InputError(where + ": column point: expected a point index (a non-negative integer)");
  if (!text("key") || row["key"].get<std::string>().empty())
    throw InputError(where + ": column key: expected the point's key");
  const std::string problem = unprintable(row["key"].get<std::string>());
  if (!problem.empty()) throw InputError(where + ": column key: holds " + problem + " (stasim writes printable keys only)");
  const std::string status = text("status") ? row["status"].get<std::string>() : "";
  if (status != "ok" && status != "invalid" && status != "error")
    throw InputError(where + ": column status: expected ok, invalid or error");
  if (status == "ok")
    for (const char* name : {"tpot_us", "bits_per_weight"})
      if (!number(name)) throw InputError(where + ": column " + std::string(name) + ": expected a number in an ok row");
}

// The vary cell's keys become columns beside the fixed ones; a key named like a fixed column would overwrite it.
void check_vary_cell(const SweepRow& row, const std::string& where) {
  for (const auto& assignment : vary_assignments(row.value("vary", nlohmann::json())))
    if (find_column(assignment.first) || !is_vary_column_name(assignment.first))
      throw InputError(where + ": column vary: '" + assignment.first + "' cannot be a --vary key (a column of the "
                       "sweep output, or not a config key)");
}

// One JSON line as a row: an object whose keys are columns with values of the column's type.
SweepRow json_row(const std::string& line, const std::string& where) {
  nlohmann::json doc = nlohmann::json::parse(line);  // a parse error is handled by the caller
  if (!doc.is_object()) throw InputError(where + ": expected a JSON object (one sweep row), got " + doc.type_name());
  SweepRow row = nlohmann::json::object();
  for (const Column& c : columns()) row[c.name] = nullptr;
  for (const auto& item : doc.items()) {
    const Column* c = find_column(item.key());
    if (!c) continue;  // a vary column, checked below
    const nlohmann::json& v = item.value();
    bool ok = v.is_null() || (c->type == Cell::text ? v.is_string() : v.is_number());
    if (!ok)
      throw InputError(where + ": column " + c->name + ": expected " + (c->type == Cell::text ? "a string" : "a number") +
                       ", got " + v.type_name() + " " + v.dump());
    row[c->name] = v;
  }
  // Any other key must be one of the row's vary columns, holding what its `vary` cell says.
  check_vary_cell(row, where);
  add_vary_columns(row);
  for (const auto& item : doc.items()) {
    if (find_column(item.key())) continue;
    if (!row.contains(item.key())) throw InputError(where + ": not a stasim sweep row (unexpected key '" + item.key() + "')");
    if (row[item.key()] != item.value())
      throw InputError(where + ": column " + item.key() + ": " + item.value().dump() + ", but the row's vary cell says " +
                       row[item.key()].dump());
  }
  return row;
}

}  // namespace

SweepTable read_sweep_table(const std::string& path) {
  SweepTable table;
  std::error_code missing;
  if (!std::filesystem::exists(path, missing) && !std::filesystem::is_symlink(path, missing)) return table;
  regular_file_size(path, "a sweep output");  // a directory, FIFO or device is refused before reading
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the sweep output (" + std::strerror(errno) + ")");
  bool jsonl = is_jsonl_path(path);
  std::string line;
  int number = 0;
  std::vector<std::string> header;
  std::vector<const Column*> header_columns;
  while (std::getline(in, line)) {
    ++number;
    // A killed sweep can leave its last line cut (no newline after it): only that line may be incomplete, and
    // it is skipped when it does not read as a whole row.
    bool last_and_cut = in.eof();
    std::string where = path + ":" + std::to_string(number);
    if (line.empty()) continue;
    if (jsonl) {
      SweepRow row;
      try {
        row = json_row(line, where);
      } catch (const nlohmann::json::exception& e) {
        if (last_and_cut) continue;  // the point runs again
        throw InputError(where + ": not a JSON line (" + e.what() + ")");
      }
      check_row(row, where);
      table.rows.push_back(std::move(row));
      table.lines.push_back(number);
      continue;
    }
    // A quoted cell may hold line breaks: the record goes on over the next lines until its quotes close.
    std::optional<std::vector<std::string>> record = parse_csv_record(line);
    const int first_line = number;
    std::string next;
    while (!record && !last_and_cut && std::getline(in, next)) {
      ++number;
      line += '\n' + next;
      last_and_cut = in.eof();
      record = parse_csv_record(line);
    }
    if (!record) {
      if (last_and_cut) continue;  // the cut last record
      throw InputError(where + ": unterminated quoted cell");
    }
    std::vector<std::string> cells = std::move(*record);
    if (header.empty()) {
      if (last_and_cut) throw InputError(where + ": the header line is cut (no newline after it)");
      // Columns are matched by name, so a file written before a column existed (e.g. without the quality
      // columns) still reads; its missing cells are empty.
      // A name that is no column is a vary column (one per --vary key), which needs the vary cell it comes from.
      const bool has_vary = std::find(cells.begin(), cells.end(), "vary") != cells.end();
      for (const std::string& name : cells) {
        const Column* known = find_column(name);
        if (!known && !(has_vary && is_vary_column_name(name)))
          throw InputError(where + ": not a stasim sweep CSV (unexpected header column '" + name + "')");
        if (std::find(header.begin(), header.end(), name) != header.end())
          throw InputError(where + ": the header names column '" + name + "' twice");
        header_columns.push_back(known);
        header.push_back(name);
      }
      for (const char* required : {"point", "key", "status"})
        if (std::find(header.begin(), header.end(), required) == header.end())
          throw InputError(where + ": not a stasim sweep CSV (no " + std::string(required) + " column)");
      continue;
    }
    if (cells.size() != header.size()) {
      if (last_and_cut) continue;  // a line cut by a killed sweep
      throw InputError(where + ": " + std::to_string(cells.size()) + " cells, but the header has " +
                       std::to_string(header.size()) + " columns");
    }
    SweepRow row = nlohmann::json::object();
    for (const Column& c : columns()) row[c.name] = nullptr;
    bool cut = false;
    for (std::size_t i = 0; i < cells.size() && !cut; ++i) {
      if (!header_columns[i]) continue;  // a vary column, checked against the vary cell below
      const Column& c = *header_columns[i];
      if (cells[i].empty()) row[c.name] = nullptr;
      else if (c.type == Cell::text) row[c.name] = cells[i];
      else {
        try {
          row[c.name] = nlohmann::json::parse(cells[i]);
        } catch (const nlohmann::json::exception&) {
          cut = last_and_cut;
          if (!cut) throw InputError(where + ": column " + c.name + ": '" + cells[i] + "' is not a number");
        }
        if (!cut && !row[c.name].is_number())
          throw InputError(where + ": column " + c.name + ": '" + cells[i] + "' is not a number");
      }
    }
    if (cut) continue;
    check_vary_cell(row, where);
    add_vary_columns(row);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (header_columns[i]) continue;
      const std::string derived = row.contains(header[i]) ? cell_text(row[header[i]]) : "";
      if (cells[i] != derived)
        throw InputError(where + ": column " + header[i] + ": '" + cells[i] + "', but the row's vary cell says '" +
                         derived + "'");
    }
    check_row(row, where);
    table.rows.push_back(std::move(row));
    table.lines.push_back(first_line);
  }
  if (in.bad()) throw InputError(path + ": cannot read the sweep output (" + std::strerror(errno) + ")");
  return table;
}

std::vector<SweepRow> read_sweep_rows(const std::string& path) { return read_sweep_table(path).rows; }

void check_one_grid(const std::vector<SweepTable>& parts, const std::vector<std::string>& paths) {
  // Within one grid a point index names one key and a key one index; anything else mixes grids.
  std::map<std::uint64_t, std::pair<std::string, std::string>> key_of;  // point -> (key, where)
  std::map<std::string, std::pair<std::uint64_t, std::string>> point_of;
  for (std::size_t f = 0; f < parts.size(); ++f) {
    for (std::size_t i = 0; i < parts[f].rows.size(); ++i) {
      const SweepRow& row = parts[f].rows[i];
      const std::uint64_t point = row["point"].get<std::uint64_t>();
      const std::string key = row["key"].get<std::string>();
      const std::string where = paths[f] + ":" + std::to_string(parts[f].lines[i]);
      auto [k, fresh_point] = key_of.emplace(point, std::make_pair(key, where));
      if (!fresh_point && k->second.first != key)
        throw InputError(where + ": point " + std::to_string(point) + " is '" + key + "', but at " + k->second.second +
                         " it is '" + k->second.first + "': the rows come from different sweep grids");
      auto [p, fresh_key] = point_of.emplace(key, std::make_pair(point, where));
      if (!fresh_key && p->second.first != point)
        throw InputError(where + ": '" + key + "' is point " + std::to_string(point) + ", but at " + p->second.second +
                         " it is point " + std::to_string(p->second.first) + ": the rows come from different sweep grids");
    }
  }
}

void finalize(std::vector<SweepRow>& rows) {
  for (SweepRow& row : rows) add_vary_columns(row);
  std::stable_sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    return std::make_pair(a.value("point", 0), a.value("key", std::string())) <
           std::make_pair(b.value("point", 0), b.value("key", std::string()));
  });
  std::set<std::string> seen;
  std::vector<SweepRow> unique;
  for (SweepRow& row : rows)
    if (seen.insert(row.value("key", std::string())).second) unique.push_back(std::move(row));
  rows = std::move(unique);

  auto group_of = [](const SweepRow& row) {
    std::string key = row.value("key", std::string());
    return key.substr(0, key.find("|dataflow="));
  };
  auto ok = [](const SweepRow& row) { return row.value("status", std::string()) == "ok"; };
  std::map<std::string, double> dense_tpot;
  for (const SweepRow& row : rows)
    if (ok(row) && row["dataflow"] == "dense") dense_tpot[group_of(row)] = row["tpot_us"].get<double>();
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SweepRow& row = rows[i];
    row["speedup_vs_dense"] = nullptr;
    row["pareto"] = nullptr;
    row["pareto_quality"] = nullptr;
    if (!ok(row)) continue;
    auto base = dense_tpot.find(group_of(row));
    double tpot = row["tpot_us"].get<double>();
    if (base != dense_tpot.end() && tpot > 0) row["speedup_vs_dense"] = round_to(base->second / tpot, 10000.0);
    groups[group_of(row)].push_back(i);
  }
  // Pareto front of (bits/weight, TPOT), both minimized: a point is on it when no other point of its group is
  // at least as good in both and better in one.
  for (const auto& [group, members] : groups) {
    for (std::size_t i : members) {
      double bits = rows[i]["bits_per_weight"].get<double>(), tpot = rows[i]["tpot_us"].get<double>();
      bool dominated = false;
      for (std::size_t j : members) {
        double b = rows[j]["bits_per_weight"].get<double>(), t = rows[j]["tpot_us"].get<double>();
        if (b <= bits && t <= tpot && (b < bits || t < tpot)) {
          dominated = true;
          break;
        }
      }
      rows[i]["pareto"] = dominated ? 0 : 1;
    }
  }
  // The quality–latency front: (nmse, TPOT), both minimized, among the points of the group with an nmse.
  for (const auto& [group, members] : groups) {
    auto has_nmse = [&](std::size_t i) { return rows[i].value("nmse", nlohmann::json()).is_number(); };
    for (std::size_t i : members) {
      if (!has_nmse(i)) continue;
      double nmse = rows[i]["nmse"].get<double>(), tpot = rows[i]["tpot_us"].get<double>();
      bool dominated = false;
      for (std::size_t j : members) {
        if (!has_nmse(j)) continue;
        double q = rows[j]["nmse"].get<double>(), t = rows[j]["tpot_us"].get<double>();
        if (q <= nmse && t <= tpot && (q < nmse || t < tpot)) {
          dominated = true;
          break;
        }
      }
      rows[i]["pareto_quality"] = dominated ? 0 : 1;
    }
  }
}

void write_sweep_rows(const std::string& path, const std::vector<SweepRow>& rows) {
  bool jsonl = is_jsonl_path(path);
  std::string text;
  const std::vector<std::string> vary = vary_columns(rows);
  if (!jsonl) text += csv_header(vary) + "\n";
  for (const SweepRow& row : rows) text += row_line(row, jsonl, vary) + "\n";
  replace_output_file(path, text, "the sweep output");
}

}  // namespace stasim
