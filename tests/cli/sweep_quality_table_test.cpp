// The quality columns of the sweep table: the quality–latency front (NMSE vs TPOT) on hand-made rows, and a CSV
// written before the quality columns existed still reads (columns are matched by name).
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/input_error.hpp"
#include "sim/studies/sweep_table.hpp"

namespace stasim {
namespace {

SweepRow row(int point, const std::string& dataflow, double tpot, nlohmann::json nmse) {
  SweepRow r = nlohmann::json::object();
  r["point"] = point;
  r["key"] = "g|dataflow=" + dataflow + "|drk=" + std::to_string(point);
  r["dataflow"] = dataflow;
  r["status"] = "ok";
  r["bits_per_weight"] = 4.0;
  r["tpot_us"] = tpot;
  r["nmse"] = nmse;
  return r;
}

TEST(SweepQualityTable, QualityLatencyFront) {
  std::vector<SweepRow> rows = {
      row(0, "dense", 100.0, 0.0),     // front: exact (nothing has a lower nmse)
      row(1, "cardan", 60.0, 0.01),    // front
      row(2, "cardan", 70.0, 0.02),    // dominated by point 1 (faster and more accurate)
      row(3, "cardan", 50.0, 0.05),    // front: fastest
      row(4, "cardan", 40.0, nullptr), // no nmse: not on the quality front, whatever its TPOT
      row(5, "cardan", 60.0, 0.01),    // ties point 1 in both: neither dominates the other
  };
  finalize(rows);
  EXPECT_EQ(rows[0]["pareto_quality"], 1);
  EXPECT_EQ(rows[1]["pareto_quality"], 1);
  EXPECT_EQ(rows[2]["pareto_quality"], 0);
  EXPECT_EQ(rows[3]["pareto_quality"], 1);
  EXPECT_TRUE(rows[4]["pareto_quality"].is_null());
  EXPECT_EQ(rows[5]["pareto_quality"], 1);
  // The bits/TPOT front ignores nmse: at equal bits only the fastest (point 4, 40 us) survives.
  EXPECT_EQ(rows[4]["pareto"], 1);
  EXPECT_EQ(rows[3]["pareto"], 0);
}

TEST(SweepQualityTable, CsvWithoutQualityColumnsStillReads) {
  std::string path = testing::TempDir() + "sweep_quality_old.csv";
  std::ofstream(path) << "point,key,dataflow,status,tpot_us,bits_per_weight\n"
                      << "0,g|dataflow=dense|drk=-,dense,ok,100,16\n";
  std::vector<SweepRow> rows = read_sweep_rows(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["tpot_us"], 100);
  EXPECT_TRUE(rows[0]["nmse"].is_null());
  std::ofstream(path) << "point,key,tpot_ms\n";
  EXPECT_THROW(read_sweep_rows(path), stasim::InputError);
}

}  // namespace
}  // namespace stasim
