// The table of `stasim compare --csv FILE`: one row per dataflow with the columns of the printed comparison, for
// pandas or a spreadsheet. The cells are written by the project's one CSV writer (sweep_table.hpp csv_record).
#pragma once

#include <string>
#include <vector>

#include "sim/studies/decode_run.hpp"

namespace stasim {

// Header + one line per run: model, hw, tp, lnc, batch, layers, dataflow, tpot_us, speedup_vs_<first dataflow>,
// moe_block_us, bits_per_weight, dma_active_us, hbm_read_bytes, gpsimd_instructions, tensor_busy_pct,
// down_schedule, critical_engine. Times in µs with three decimals, as the printed table.
std::string comparison_csv(const std::vector<DecodeRun>& runs);

}  // namespace stasim
