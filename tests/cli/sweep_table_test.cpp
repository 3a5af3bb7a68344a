// The comparison columns of a sweep (speedup against the dense row of the same group, the Pareto front of
// bits/weight vs TPOT) and the CSV round trip, on hand-made rows.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/input_error.hpp"
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

// A reason that holds a line break is written as one quoted field over two lines (RFC 4180), and a resumed sweep
// reads it back whole: the next row still starts on its own record.
TEST(SweepTable, CsvFieldWithALineBreakRoundTrips) {
  std::vector<SweepRow> rows = {row(0, "g", "dense", 16.0, 10.0), row(1, "g", "cardan", 2.0, 5.0),
                                row(2, "g", "cardan", 3.0, 6.0)};
  rows[1]["reason"] = "first line, \"quoted\"\nsecond line";
  finalize(rows);
  std::string a = testing::TempDir() + "linebreak_a.csv", b = testing::TempDir() + "linebreak_b.csv";
  write_sweep_rows(a, rows);
  std::ifstream fa(a);
  std::string ta((std::istreambuf_iterator<char>(fa)), {});
  EXPECT_NE(ta.find(",\"first line, \"\"quoted\"\"\nsecond line\","), std::string::npos);
  SweepTable table = read_sweep_table(a);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[1]["reason"], "first line, \"quoted\"\nsecond line");
  EXPECT_EQ(table.rows[2]["point"], 2);
  EXPECT_EQ(table.lines, (std::vector<int>{2, 3, 5}));  // row 1 spans lines 3 and 4
  write_sweep_rows(b, table.rows);
  std::ifstream fb(b);
  std::string tb((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_EQ(ta, tb);
}

// A killed sweep can cut its last record inside a quoted field: without a newline at the end that record is
// skipped (the point runs again); a file that ends with a newline inside quotes is refused, naming the line.
TEST(SweepTable, RecordCutInsideQuotes) {
  std::string header, good;
  {
    std::vector<SweepRow> rows = {row(0, "g", "dense", 16.0, 10.0)};
    finalize(rows);
    std::string path = testing::TempDir() + "cut_header.csv";
    write_sweep_rows(path, rows);
    std::ifstream in(path);
    std::getline(in, header);
    std::getline(in, good);
  }
  std::string cut = testing::TempDir() + "cut_in_quotes.csv";
  std::ofstream(cut) << header << "\n" << good << "\n1,\"g|x";
  EXPECT_EQ(read_sweep_table(cut).rows.size(), 1u);
  std::string open = testing::TempDir() + "open_quote.csv";
  std::ofstream(open) << header << "\n" << good << "\n1,\"g|x\n";
  try {
    read_sweep_table(open);
    ADD_FAILURE() << "an unterminated quoted cell was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), open + ":3: unterminated quoted cell");
  }
}

}  // namespace
}  // namespace stasim
