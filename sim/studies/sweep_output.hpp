// What `stasim sweep` does around its points for the file it writes, so that the output is safe on a cluster:
// the share of the grid it runs (--shard i/N), --out's folder made when missing, the checks of --resume (every
// row already in --out is a point of this grid, recorded by a sweep of the same setup), the configs it records
// in its provenance, and the quality cells of a --weights sweep. Bad input is an InputError naming the option.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/studies/resolved_configs.hpp"
#include "sim/studies/sweep_fingerprint.hpp"
#include "sim/studies/sweep_grid.hpp"
#include "sim/studies/sweep_quality.hpp"
#include "sim/studies/sweep_table.hpp"

namespace stasim {

// --shard "i/N": exactly two decimal integers around one slash, 0 <= i < N ("0.9/2", "1/2x", "0/2/7" or " 1/2"
// are refused, not read as the numbers they start with).
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count);

// --out's folder, made when missing (a cluster job writes parts/part7.csv before parts/ exists).
void make_parent_folder(const std::string& out);

// --resume continues the same sweep: every row already in --out must be a point of this grid, at its index ...
void check_resumed_rows(const SweepTable& table, const std::vector<SweepPoint>& grid, const std::string& out);
// ... and the setup --out's .meta.json recorded (configs, --set, --tp, switches, ...) must be this sweep's, or
// its rows would be mixed with rows of other settings.
void check_resumed_setup(const std::string& out, const SweepGridInfo& grid);

// What the sweep read: its hardware and each model with the --set values (not the --vary keys, which the
// points' keys name), and its routes file.
ResolvedConfigs sweep_configs(const SweepSpec& spec);

// Quality cells (nmse, quality_bits_per_weight) per point key, each representation built once. A
// representation that does not fit the measured layer leaves its points without an nmse and says why on stderr.
std::map<std::string, SweepRow> quality_cells(const std::vector<SweepPoint>& points, SweepQuality& quality,
                                              std::map<std::string, ModelSpec>& models, const DataflowRegistry& registry);

}  // namespace stasim
