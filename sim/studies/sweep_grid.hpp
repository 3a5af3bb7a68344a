// The points of a sweep: the cross product of models, dataflows, batch sizes, (d, r, K) and any config keys
// (`--vary key=v1,v2`), from the command line or a sweep YAML (configs/sweeps/). Dataflows that ignore
// (d, r, K) (dense) get one point per remaining combination. Each point has a stable index in the full grid
// and a key naming its inputs, which --shard, --resume and merge rely on.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
  std::string hw = "trn3-calibrated";  // the same default as run and compare
  std::vector<std::int64_t> batch{1}, d{8}, r{384}, K{256};
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;  // config key -> values
  std::int64_t layers = 0;
  std::string down = "weight-sbuf";
  // Quality columns (sim/studies/sweep_quality.hpp): a checkpoint path or "synthetic[:key=value,...]", "" = none.
  std::string weights;
  std::int64_t weights_layer = -1;  // the layer whose experts are compressed; -1: the model's first MoE layer
};

// Reads a sweep YAML (keys: models, dataflows, hw, batch, d, r, K, vary, layers, down_schedule, weights,
// weights_layer; integer lists
// may be YAML lists or range strings). Unknown keys are errors with a did-you-mean.
SweepSpec load_sweep(const std::string& path);

// Parses "key=v1,v2" (an argument of --vary).
std::pair<std::string, std::vector<std::string>> parse_vary(const std::string& text);

struct SweepPoint {
  std::size_t index = 0;
  std::string model, dataflow, hw;
  std::int64_t batch = 1, d = 0, r = 0, K = 0;
  bool uses_drk = true;   // false for dense: d, r and K are not inputs
  std::vector<std::string> sets;  // the vary assignments, key=value
  std::int64_t layers = 0;
  std::string down;
  std::string weights;  // the quality source with its layer ("synthetic@0"), "" without quality columns

  std::string vary_text() const;  // "core.dma.engines=8;model.x=1", empty without --vary
  std::string key() const;        // every input, "model=...|dataflow=...|..."
  // The baseline group: the inputs the dense dataflow depends on (speedup and Pareto compare within it).
  std::string group() const;
};

// The full grid in a fixed order; dataflows that ignore (d, r, K) are listed once per combination of the rest.
// `drk_free` says which dataflows those are. InputError when it would exceed kMaxGridPoints.
std::vector<SweepPoint> expand(const SweepSpec& spec, bool (*drk_free)(const std::string& dataflow));

}  // namespace stasim
