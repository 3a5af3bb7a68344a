// `--ops FILE.csv`: one row per simulated op, and the rows add up to the run's own figures (instructions per
// engine, HBM bytes read, the critical path's ops, TPOT); compare writes one table per dataflow; a hand schedule's
// rows carry the values its YAML gives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using stasim::test::Output;

std::string tmp(const std::string& name) { return testing::TempDir() + "op_table_" + name; }

using Row = std::map<std::string, std::string>;

// The table as header-keyed rows (no cell stasim writes holds a comma or a quote).
std::vector<Row> read_csv(const std::string& path, std::vector<std::string>* header_out = nullptr) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string cell; std::getline(hs, cell, ',');) header.push_back(cell);
  if (header_out) *header_out = header;
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row row;
    std::stringstream ls(line + ",");
    std::size_t i = 0;
    for (std::string cell; std::getline(ls, cell, ',') && i < header.size(); ++i) row[header[i]] = cell;
    EXPECT_EQ(i, header.size()) << line;
    rows.push_back(row);
  }
  return rows;
}

TEST(OpTable, RowsAddUpToTheRunsFigures) {
  Output o = stasim::test::run_stasim("run --layers 2 --quiet --json " + tmp("run.json") + " --ops " + tmp("run.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  std::vector<std::string> header;
  const std::vector<Row> rows = read_csv(tmp("run.csv"), &header);
  EXPECT_EQ(header, (std::vector<std::string>{"op", "core", "queue", "engine", "layer", "expert", "phase", "kind",
                                              "start_ns", "end_ns", "duration_ns", "bound_by", "critical", "dtype",
                                              "shape", "bytes", "src", "dst", "dge", "bytes_per_partition", "achieved_gbps",
                                              "instructions"}));
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(tmp("run.json")));
  ASSERT_EQ(rows.size(), run["sim"]["ops"].get<std::size_t>());
  std::map<std::string, long> instructions;
  long hbm_read = 0, critical = 0, transfers = 0;
  double last_end_ns = 0;
  std::set<std::string> layers;
  for (const Row& r : rows) {
    instructions[r.at("engine")] += std::stol(r.at("instructions"));
    const double start = std::stod(r.at("start_ns")), end = std::stod(r.at("end_ns"));
    EXPECT_LE(start, end) << r.at("op");
    EXPECT_NEAR(std::stod(r.at("duration_ns")), end - start, 1.5e-3) << r.at("op");
    last_end_ns = std::max(last_end_ns, end);
    critical += r.at("critical") == "1";
    layers.insert(r.at("layer"));
    if (r.at("engine") == "dma") {
      ++transfers;
      EXPECT_EQ(r.at("queue").rfind("dma", 0), 0u) << r.at("queue");
      if (r.at("src") == "hbm") hbm_read += std::stol(r.at("bytes"));
    } else {
      EXPECT_EQ(r.at("bytes"), "") << r.at("op");  // bytes are a DMA column
    }
  }
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "collective"})
    EXPECT_EQ(instructions[e], run["engines"][e]["instructions"].get<long>()) << e;
  EXPECT_EQ(transfers, run["dma"]["transfers"].get<long>());
  EXPECT_EQ(hbm_read, run["dma"]["hbm_read_bytes"].get<long>());
  EXPECT_EQ(critical, run["critical_path"]["ops"].get<long>());
  // The device's step ends with the last op; the TPOT adds the host's part of the step.
  EXPECT_NEAR(last_end_ns / 1000.0, run["device_step_us"].get<double>(), 1e-3);
  EXPECT_NEAR(last_end_ns / 1000.0 + run["host_step_us"].get<double>(), run["tpot_us"].get<double>(), 2e-3);
  // Layers 0 and 1, and "" for the embedding and the LM head, which belong to no layer.
  EXPECT_EQ(layers, (std::set<std::string>{"", "0", "1"}));
}

TEST(OpTable, CompareWritesOneTablePerDataflow) {
  Output o = stasim::test::run_stasim("compare --layers 1 --quiet --dataflows dense,cardan --down-schedule weight-sbuf "
                                      "--ops " + tmp("cmp.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<Row> dense = read_csv(tmp("cmp.dense.csv")), cardan = read_csv(tmp("cmp.cardan.csv"));
  ASSERT_FALSE(dense.empty());
  ASSERT_FALSE(cardan.empty());
  auto has_gather = [](const std::vector<Row>& rows) {
    for (const Row& r : rows)
      if (r.at("kind") == "gather") return true;
    return false;
  };
  EXPECT_FALSE(has_gather(dense));  // only the hybrid looks code words up on GpSimd
  EXPECT_TRUE(has_gather(cardan));
}

TEST(OpTable, ScheduleRowsCarryTheYamlsValues) {
  Output o = stasim::test::run_stasim("schedule --quiet --schedule configs/schedules/expert_ffn_tile.yaml --ops " +
                                      tmp("tile.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<Row> rows = read_csv(tmp("tile.csv"));
  ASSERT_EQ(rows.size(), 8u);  // the eight ops of expert_ffn_tile.yaml, in file order
  const Row& load = rows[1];   // load_wg: queue 1, 131072 bytes over 128 partitions, HBM -> SBUF
  EXPECT_EQ(load.at("op"), "load_wg");
  EXPECT_EQ(load.at("queue"), "dma1");
  EXPECT_EQ(load.at("bytes"), "131072");
  EXPECT_EQ(load.at("bytes_per_partition"), "1024");  // 131072 / 128
  EXPECT_EQ(load.at("src"), "hbm");
  EXPECT_EQ(load.at("dst"), "sbuf");
  EXPECT_EQ(load.at("dge"), "static");  // the schedule names no descriptor-generation mode
  EXPECT_EQ(load.at("phase"), "gate_up");
  EXPECT_EQ(load.at("layer"), "");
  // achieved GB/s = 131072 bytes / the transfer's duration in ns.
  EXPECT_NEAR(std::stod(load.at("achieved_gbps")), 131072.0 / std::stod(load.at("duration_ns")), 1e-3);
  const Row& mm = rows[3];  // mm_gate: 128 x 1 stationary, 512 moving
  EXPECT_EQ(mm.at("op"), "mm_gate");
  EXPECT_EQ(mm.at("engine"), "tensor");
  EXPECT_EQ(mm.at("shape"), "k128 m1 n512");
  EXPECT_EQ(mm.at("dtype"), "bf16");
  EXPECT_EQ(mm.at("bound_by").rfind("dep:", 0), 0u) << mm.at("bound_by");
}

// A sendrecv on GpSimd's own DMA (core.dma.exchange_engine = gpsimd_dma) moves bytes: its row carries them like
// a DMA transfer's, without a descriptor mode.
TEST(OpTable, AGpSimdSendrecvRowCarriesItsBytes) {
  const std::string yaml = tmp("sendrecv.yaml");
  std::ofstream(yaml) << "ops:\n"
                         "  - {name: swap, engine: gpsimd, kind: sendrecv, core: 1, bytes: 768, partitions: 1, "
                         "src: sbuf, dst: core0}\n";
  Output o = stasim::test::run_stasim("schedule --quiet --hw trn3 --schedule " + yaml + " --ops " + tmp("sendrecv.csv"));
  ASSERT_EQ(o.code, 0) << o.text;
  const std::vector<Row> rows = read_csv(tmp("sendrecv.csv"));
  ASSERT_EQ(rows.size(), 1u);
  const Row& swap = rows[0];
  EXPECT_EQ(swap.at("engine"), "gpsimd");
  EXPECT_EQ(swap.at("kind"), "sendrecv");
  EXPECT_EQ(swap.at("bytes"), "768");
  EXPECT_EQ(swap.at("bytes_per_partition"), "768");  // one partition
  EXPECT_EQ(swap.at("src"), "sbuf");
  EXPECT_EQ(swap.at("dst"), "core0");
  EXPECT_EQ(swap.at("dge"), "");
  EXPECT_EQ(swap.at("instructions"), "1");
  // trn3: gpsimd_dma_ns 500 + link latency 500 + 768 B / 100 B/ns = 1007.68 ns; 768 / 1007.68 = 0.762 GB/s.
  EXPECT_EQ(swap.at("duration_ns"), "1007.680");
  EXPECT_EQ(swap.at("achieved_gbps"), "0.762");
}

// The hybrid's code-word table T in FP32 (the default) against --no-fp32-table: the rows show what changes. The 32 reductions of one Qwen3
// layer (2 cores x 8 experts x gate and up, one 128-block tile each, a ones vector stationary and 192 columns
// moving) go from max(min(64, 1), 192) + 32 = 224 to 4 x 192 + 32 = 800 cycles: 576 more each, 32 x 576 / 2.4 GHz
// = 7.68 us more at full rate and at most twice that under the dI/dt throttle's half rate. GpSimd's gathers move
// FP32 elements at one word each, as BF16 ones at one index per element do: their time does not change; nor do
// the bytes read from HBM.
TEST(OpTable, AnFp32TableSlowsOnlyTheReductionOfTheGatheredRows) {
  auto rows = [](const std::string& extra, const std::string& name) {
    Output o = stasim::test::run_stasim("run --layers 1 --down-schedule weight-sbuf --quiet" + extra + " --ops " + tmp(name));
    EXPECT_EQ(o.code, 0) << o.text;
    return read_csv(tmp(name));
  };
  const std::vector<Row> bf16 = rows(" --no-fp32-table", "table_bf16.csv"), fp32 = rows("", "table_fp32.csv");
  auto sum = [](const std::vector<Row>& table, const std::string& part, const std::string& engine, std::size_t* n) {
    double ns = 0;
    *n = 0;
    for (const Row& r : table)
      if (r.at("op").find(part) != std::string::npos && r.at("engine") == engine) {
        ns += std::stod(r.at("duration_ns"));
        ++*n;
      }
    return ns;
  };
  std::size_t n_bf16 = 0, n_fp32 = 0, g_bf16 = 0, g_fp32 = 0;
  const double extra = sum(fp32, ".vq_sum[", "tensor", &n_fp32) - sum(bf16, ".vq_sum[", "tensor", &n_bf16);
  EXPECT_EQ(n_bf16, 32u);
  EXPECT_EQ(n_fp32, 32u);
  EXPECT_GE(extra, 7680.0 - 1);
  EXPECT_LE(extra, 2 * 7680.0 + 1);
  EXPECT_DOUBLE_EQ(sum(fp32, ".gather", "gpsimd", &g_fp32), sum(bf16, ".gather", "gpsimd", &g_bf16));
  EXPECT_EQ(g_fp32, g_bf16);
  for (const Row& r : fp32)
    if (r.at("op").find(".vq_sum[") != std::string::npos) EXPECT_EQ(r.at("dtype"), "fp32") << r.at("op");
  auto hbm = [](const std::vector<Row>& table) {
    double bytes = 0;
    for (const Row& r : table)
      if (r.at("src") == "hbm" && !r.at("bytes").empty()) bytes += std::stod(r.at("bytes"));
    return bytes;
  };
  EXPECT_DOUBLE_EQ(hbm(fp32), hbm(bf16));
}

}  // namespace
