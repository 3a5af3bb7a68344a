#include "sim/studies/sweep_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "sim/core/input_error.hpp"

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

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out + "\"";
}

// One CSV record (the writer never emits newlines inside cells).
std::vector<std::string> parse_csv_line(const std::string& line, const std::string& where) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (quoted) throw InputError(where + ": unterminated quoted cell");
  cells.push_back(cell);
  return cells;
}

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

std::string csv_header() {
  std::string out;
  for (const Column& c : columns()) out += (out.empty() ? "" : ",") + std::string(c.name);
  return out;
}

std::string row_line(const SweepRow& row, bool jsonl) {
  if (jsonl) {
    nlohmann::json ordered = nlohmann::json::object();
    for (const Column& c : columns()) ordered[c.name] = row.value(c.name, nlohmann::json());
    return ordered.dump();
  }
  std::string out;
  bool first = true;
  for (const Column& c : columns()) {
    out += (first ? "" : ",") + csv_cell(row.value(c.name, nlohmann::json()));
    first = false;
  }
  return out;
}

std::vector<SweepRow> read_sweep_rows(const std::string& path) {
  std::vector<SweepRow> rows;
  std::ifstream in(path);
  if (!in) return rows;
  bool jsonl = is_jsonl_path(path);
  std::string line;
  int number = 0;
  std::vector<std::string> header;
  std::vector<const Column*> header_columns;
  while (std::getline(in, line)) {
    ++number;
    std::string where = path + ":" + std::to_string(number);
    if (line.empty()) continue;
    if (jsonl) {
      try {
        rows.push_back(nlohmann::json::parse(line));
      } catch (const nlohmann::json::exception&) {
        // A line cut by a killed sweep is the only kind the writer can leave behind; the point runs again.
        continue;
      }
      continue;
    }
    std::vector<std::string> cells = parse_csv_line(line, where);
    if (header.empty()) {
      // Columns are matched by name, so a file written before a column existed (e.g. without the quality
      // columns) still reads; its missing cells are empty.
      for (const std::string& name : cells) {
        auto known = std::find_if(columns().begin(), columns().end(), [&](const Column& c) { return name == c.name; });
        if (known == columns().end())
          throw InputError(where + ": not a stasim sweep CSV (unexpected header column '" + name + "')");
        header_columns.push_back(&*known);
      }
      header = cells;
      if (std::find(header.begin(), header.end(), "key") == header.end())
        throw InputError(where + ": not a stasim sweep CSV (no key column)");
      continue;
    }
    if (cells.size() != header.size()) continue;  // a line cut by a killed sweep
    SweepRow row = nlohmann::json::object();
    for (const Column& c : columns()) row[c.name] = nullptr;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const Column& c = *header_columns[i];
      if (cells[i].empty()) row[c.name] = nullptr;
      else if (c.type == Cell::text) row[c.name] = cells[i];
      else {
        try {
          row[c.name] = nlohmann::json::parse(cells[i]);
        } catch (const nlohmann::json::exception&) {
          throw InputError(where + ": column " + c.name + ": '" + cells[i] + "' is not a number");
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void finalize(std::vector<SweepRow>& rows) {
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
  std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    if (!out) throw InputError(path + ": cannot write the sweep output");
    bool jsonl = is_jsonl_path(path);
    if (!jsonl) out << csv_header() << '\n';
    for (const SweepRow& row : rows) out << row_line(row, jsonl) << '\n';
  }
  std::filesystem::rename(temp, path);
}

}  // namespace stasim
