// Tables chosen by their file's extension: `sweep --out` and `merge --out` take .csv, .jsonl or .json and refuse
// another (nothing is written under a name that says another format); `compare --csv FILE.csv` writes the
// comparison through the one CSV writer (sweep_table.hpp csv_record), quoting as the sweep's rows are quoted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/studies/sweep_table.hpp"
#include "tests/cli/cli_runner.hpp"

namespace stasim::test {
namespace {

using testing::HasSubstr;

TEST(TableOutputs, AnUnknownExtensionIsRefusedNamingTheAcceptedOnes) {
  const std::string dir = fresh_dir("tables_", "extensions");
  Output sweep = run_stasim("sweep --layers 1 --out " + dir + "/x.parquet");
  EXPECT_EQ(sweep.code, 2);
  EXPECT_EQ(sweep.text, "error: --out " + dir + "/x.parquet: unknown extension '.parquet'; the format is chosen by the "
                        "extension: .csv, .jsonl or .json\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.parquet"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.parquet.meta.json"));
  Output bare = run_stasim("sweep --layers 1 --out " + dir + "/rows");
  EXPECT_EQ(bare.code, 2);
  EXPECT_THAT(bare.text, HasSubstr("--out " + dir + "/rows: no extension; the format is chosen by the extension"));
  Output merge = run_stasim("merge " + dir + "/a.csv --out " + dir + "/m.xlsx");
  EXPECT_EQ(merge.code, 2);
  EXPECT_THAT(merge.text, HasSubstr("--out " + dir + "/m.xlsx: unknown extension '.xlsx'"));
  Output compare = run_stasim("compare --layers 1 --csv " + dir + "/c.tsv");
  EXPECT_EQ(compare.code, 2);
  EXPECT_EQ(compare.text, "error: --csv " + dir + "/c.tsv: unknown extension '.tsv'; the format is chosen by the "
                          "extension: .csv\n");
}

TEST(TableOutputs, CompareWritesItsTableAsCsv) {
  const std::string dir = fresh_dir("tables_", "compare");
  const std::string csv = dir + "/cmp.csv";
  Output o = run_stasim("compare --dataflows dense,cardan --layers 1 --down-schedule weight-sbuf --quiet --csv " + csv +
                        " --json " + dir + "/cmp.json");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string text = slurp(csv);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "model,hw,tp,lnc,batch,layers,dataflow,tpot_us,speedup_vs_dense,moe_block_us,bits_per_weight,dma_active_us,"
            "hbm_read_bytes,gpsimd_instructions,tensor_busy_pct,down_schedule,critical_engine");
  // One layer of Qwen3-30B-A3B on trn3-calibrated; cardan's speedup is 608.476 / 584.177 = 1.0416.
  EXPECT_EQ(text.substr(text.find('\n') + 1),
            "Qwen3-30B-A3B,trn3-calibrated,4,2,1,1,dense,608.476,1.0,118.47,16.0,423.377,185049088,0,40.2,weight-sbuf,dma\n"
            "Qwen3-30B-A3B,trn3-calibrated,4,2,1,1,cardan,584.177,1.0416,92.254,4.0627,364.851,178774016,16,43.8,weight-sbuf,dma\n");
  // The same figures as the JSON of the same command.
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir + "/cmp.json"));
  EXPECT_THAT(text, HasSubstr("," + doc["runs"][1]["tpot_us"].dump() + "," + doc["runs"][1]["speedup_vs_dense"].dump() + ","));
  // '-' is stdout, which then holds the table alone.
  Output out = run_shell(std::string(STASIM_BINARY) + " compare --dataflows dense,cardan --layers 1 "
                         "--down-schedule weight-sbuf --csv - 2>/dev/null");
  EXPECT_EQ(out.text, text);
}

TEST(TableOutputs, OneCsvWriterQuotesCellsWithSeparators) {
  // RFC 4180: a cell with ',' or '"' is quoted, its quotes doubled; null is an empty cell; numbers as JSON; LF ends
  // the record.
  EXPECT_EQ(csv_json_record({"a,b", "say \"hi\"", nullptr, 1.5, 48}), "\"a,b\",\"say \"\"hi\"\"\",,1.5,48\n");
}

}  // namespace
}  // namespace stasim::test
