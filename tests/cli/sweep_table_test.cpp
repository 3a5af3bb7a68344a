// The comparison columns of a sweep (speedup against the dense row of the same group, the Pareto front of
// bits/weight vs TPOT) and the CSV round trip, on hand-made rows.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/studies/sweep_table.hpp"

namespace stasim {
namespace {

SweepRow row(int point, const std::string& group, const std::string& dataflow, double bits, double tpot) {
  SweepRow r = nlohmann::json::object();
  r["point"] = point;
  r["key"] = group + "|dataflow=" + dataflow + "|drk=" + std::to_string(point);
  r["dataflow"] = dataflow;
  r["status"] = "ok";
  r["bits_per_weight"] = bits;
  r["tpot_us"] = tpot;
  return r;
}

TEST(SweepTable, SpeedupAndParetoWithinAGroup) {
  std::vector<SweepRow> rows = {
      row(3, "g1", "cardan", 2.0, 50.0),   // dominated by point 2 (fewer bits, same TPOT)
      row(0, "g1", "dense", 16.0, 100.0),  // the only one at 16 bits... but point 1 is faster with fewer bits
      row(1, "g1", "cardan", 4.0, 40.0),   // front: fastest
      row(2, "g1", "cardan", 1.5, 50.0),   // front: fewest bits
      row(4, "g2", "cardan", 4.0, 80.0),   // its own group, no dense row: no speedup, alone on its front
  };
  rows.push_back(rows[2]);  // a repeated key is dropped
  rows.push_back({{"point", 5}, {"key", "g1|dataflow=cardan|drk=bad"}, {"status", "invalid"}, {"reason", "d = 3"}});
  finalize(rows);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0]["point"], 0);
  EXPECT_DOUBLE_EQ(rows[0]["speedup_vs_dense"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(rows[1]["speedup_vs_dense"].get<double>(), 2.5);  // 100 / 40
  EXPECT_DOUBLE_EQ(rows[2]["speedup_vs_dense"].get<double>(), 2.0);  // 100 / 50
  EXPECT_TRUE(rows[4]["speedup_vs_dense"].is_null());
  EXPECT_EQ(rows[0]["pareto"], 0);
  EXPECT_EQ(rows[1]["pareto"], 1);
  EXPECT_EQ(rows[2]["pareto"], 1);
  EXPECT_EQ(rows[3]["pareto"], 0);
  EXPECT_EQ(rows[4]["pareto"], 1);
  EXPECT_TRUE(rows[5]["pareto"].is_null());  // failed points are on no front
}

TEST(SweepTable, CsvRoundTripIsByteIdentical) {
  std::vector<SweepRow> rows = {row(0, "g", "dense", 16.0, 10476.123), row(1, "g", "cardan", 2.8125, 6407.5)};
  rows[1]["reason"] = "a, \"quoted\" reason";
  finalize(rows);
  std::string a = testing::TempDir() + "roundtrip_a.csv", b = testing::TempDir() + "roundtrip_b.csv";
  write_sweep_rows(a, rows);
  std::vector<SweepRow> back = read_sweep_rows(a);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1]["reason"], "a, \"quoted\" reason");
  EXPECT_DOUBLE_EQ(back[0]["tpot_us"].get<double>(), 10476.123);
  write_sweep_rows(b, back);
  std::ifstream fa(a), fb(b);
  std::string ta((std::istreambuf_iterator<char>(fa)), {}), tb((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_EQ(ta, tb);
}

}  // namespace
}  // namespace stasim
