// Which engines run each kind of op, and the activation functions ScalarE knows. One table for validation (sim/core)
// and the cost formulas (engines/cost_model.hpp), sourced from the NKI ISA reference (docs/hardware-model.md,
// "Instructions"): every elementwise instruction runs on VectorE, most also on GpSimd, the activation family on
// ScalarE only; statistics, scans, selections and top-8 search are VectorE instructions; affine_select and iota
// are GpSimd's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/schedule_graph.hpp"

namespace stasim {

bool engine_runs(Engine e, OpKind k);
// Every engine that runs `k`, for messages ("vector, gpsimd").
std::string engines_running(OpKind k);

// Activation functions (nki.language / nki.isa activation functions). ScalarE holds one activation table at a
// time: a function outside it costs a table load (core.engines.scalar.table_load_cycles). Which functions share a
// table is not published: stasim gives each function its own table, except the pass-through ones (identity,
// copy), which need none and leave the loaded table in place.
bool parse_activation_function(const std::string& name, std::uint8_t& id);
const char* activation_function_name(std::uint8_t id);
const std::vector<std::string>& activation_function_names();
// The table an op needs loaded: 0 when it needs none.
std::uint8_t activation_table(std::uint8_t func);

}  // namespace stasim
