// The points of a sweep: the cross product of models, dataflows, batch sizes, (d, r, K) and any config keys or
// request switches (`--vary key=v1,v2`, `--vary option.reuse=0,1`), from the command line or a sweep YAML
// (configs/sweeps/). A dataflow gets one point per value of the parameters it reads only (dense none of d, r,
// K; vq-only d and K; lr-only r). Each point has a stable index in the full grid and a key naming its inputs,
// which --shard, --resume and merge rely on; what every point shares (--set, --tp, ...) is the spec's `base`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dataflows/dataflow_registry.hpp"
#include "sim/core/printable_text.hpp"  // unprintable(): a point's key must be printable UTF-8
#include "sim/studies/decode_run.hpp"

namespace stasim {

// A list or a range of a sweep holds at most this many values, and a grid at most kMaxGridPoints points: a typo
// like 0:1000000000:1 is an error, not hours of work or an exhausted memory.
inline constexpr std::size_t kMaxListValues = 10000;
inline constexpr std::size_t kMaxGridPoints = 1000000;

// "2,4,8", "0:512:64" (start:stop:step, stop included when reached) or a mix "1,2,8:32:8"; InputError naming
// `what` (e.g. "--r") and the text for anything unparsable, a non-positive step, stop < start, no value or
// more than kMaxListValues values.
std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what);

struct SweepSpec {
  std::vector<std::string> models{"qwen3-30b-a3b"};
  std::vector<std::string> dataflows{"dense", "cardan"};
  // The hardware axis: one name or path, or several joined by ',' ("trn2,trn3"; --hw and the YAML's `hw:`), each
  // a point of the grid (hardware_names()). The default is run's and compare's.
  std::string hw = "trn3-calibrated";
  std::vector<std::int64_t> batch{1}, d{8}, r{384}, K{256};
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;  // config key -> values
  std::int64_t layers = 0;
  std::string down = "weight-sbuf";
  // Quality columns (sim/studies/sweep_quality.hpp): a checkpoint path or "synthetic[:key=value,...]", "" = none.
  std::string weights;
  std::int64_t weights_layer = -1;  // the layer whose experts are compressed; -1: the model's first MoE layer
  // The request every point starts from: --set, --tp/--lnc/--context, --routes/--routing-seed and the switches
  // (its model, hw, dataflow, d, r, K, batch, layers and down are the point's own).
  RunRequest base;
};

// The hardware of the grid, in the order given: spec.hw split at ','.
std::vector<std::string> hardware_names(const SweepSpec& spec);

// Reads a sweep YAML (keys: models, dataflows, hw, batch, d, r, K, vary, layers, down_schedule, weights,
// weights_layer, and run's request options into `base`: set, tp, lnc, context, routes (relative to the YAML's
// folder), routing_seed, and run's switches as booleans (reuse, batch_gathers, ...: request_switches.hpp); integer lists may be YAML lists or range strings). Unknown keys are errors with a did-you-mean.
SweepSpec load_sweep(const std::string& path);

// Parses "key=v1,v2" (an argument of --vary); option.* values in their one spelling (sim/studies/request_axes.hpp).
std::pair<std::string, std::vector<std::string>> parse_vary(const std::string& text);

// Each --vary key becomes a column of the output and its values are joined with ';' in the `vary` cell:
// InputError for a key given twice, named like a fixed column or not shaped like a config key, or a value
// holding ';'. expand() checks it too.
void check_vary_keys(const SweepSpec& spec);

// Every value of an axis is one point of the grid, so a value given twice (--r 0,0,64, a model or dataflow named
// twice, a --vary value twice) would make two points with one key, which resume and merge cannot tell apart:
// InputError naming the axis and the value. Text that becomes part of a point's key (models, dataflows, hw, the
// down schedule, --vary values) must be printable UTF-8, the key being a cell of the output that --resume and
// merge read back: InputError naming where. expand() checks both.
void check_grid_values(const SweepSpec& spec);

struct SweepPoint {
  std::size_t index = 0;
  std::string model, dataflow, hw;
  std::int64_t batch = 1, d = 0, r = 0, K = 0;
  bool uses_d = true, uses_r = true, uses_K = true;  // which of d, r, K are inputs (none for dense)
  std::vector<std::string> sets;  // the vary assignments, key=value (hardware, model.* and option.* keys)
  std::shared_ptr<const RunRequest> base;  // the spec's base request (null: RunRequest's defaults)
  std::int64_t layers = 0;
  std::string down;
  std::string weights;  // the quality source with its layer ("synthetic@0"), "" without quality columns

  bool uses_drk() const { return uses_d || uses_r || uses_K; }
  std::string vary_text() const;  // "core.dma.engines=8;model.x=1", empty without --vary
  std::string key() const;        // every input, "model=...|dataflow=...|drk=d/r/K" ("-" for an unused one)
  // The decode request of this point: the base with the point's inputs and its vary assignments applied.
  RunRequest request() const;
  // The baseline group: the inputs the dense dataflow depends on (speedup and Pareto compare within it).
  std::string group() const;
};

// The full grid in a fixed order (model, hardware, vary values, batch, dataflow, d, r, K; the last varies fastest); each dataflow is listed once per combination of the (d, r, K) values it reads
// (the registry's uses_d/uses_r/uses_K) and of the rest. InputError when it would exceed kMaxGridPoints.
std::vector<SweepPoint> expand(const SweepSpec& spec, const DataflowRegistry& registry);
// The same where `drk_free` names the dataflows that read none of (d, r, K) and every other reads all three.
std::vector<SweepPoint> expand(const SweepSpec& spec, bool (*drk_free)(const std::string& dataflow));

}  // namespace stasim
