// The one CSV dialect (sim/reports/csv_writer.hpp, csv_reader.hpp): RFC 4180 quoting, LF record ends, and the
// reader undoing exactly what the writer did.
#include <gtest/gtest.h>

#include "sim/reports/csv_reader.hpp"
#include "sim/reports/csv_writer.hpp"

namespace stasim {
namespace {

TEST(CsvWriter, FieldWithoutSpecialCharactersStaysBare) {
  EXPECT_EQ(csv_field("gate_up[l3,e7]x"), "\"gate_up[l3,e7]x\"");  // a comma: quoted
  EXPECT_EQ(csv_field("L3.E7.gate_up"), "L3.E7.gate_up");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a b;c|d"), "a b;c|d");  // space, semicolon, bar: not special in RFC 4180
}

TEST(CsvWriter, QuotesCommaQuoteCrAndLf) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");  // each quote doubled, the field quoted
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");    // the line break kept inside the quotes
  EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
}

TEST(CsvWriter, RecordJoinsWithCommasAndEndsInLf) {
  EXPECT_EQ(csv_record({"point", "a,b", "", "x\"y"}), "point,\"a,b\",,\"x\"\"y\"\n");
  EXPECT_EQ(csv_record({}), "\n");
}

TEST(CsvReader, ReadsBackWhatTheWriterWrites) {
  const std::vector<std::string> fields = {"1", "a, \"quoted\" reason", "", "two\nlines", "plain"};
  std::string text = csv_record(fields);
  text.pop_back();  // the reader takes a record without its final LF
  EXPECT_EQ(text, "1,\"a, \"\"quoted\"\" reason\",,\"two\nlines\",plain");
  const std::optional<std::vector<std::string>> back = parse_csv_record(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, fields);
}

TEST(CsvReader, SaysWhenARecordEndsInsideQuotes) {
  EXPECT_FALSE(parse_csv_record("1,\"two").has_value());  // the caller appends the next line
  const std::optional<std::vector<std::string>> joined = parse_csv_record("1,\"two\nlines\",3");
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(*joined, (std::vector<std::string>{"1", "two\nlines", "3"}));
  EXPECT_EQ(*parse_csv_record(""), std::vector<std::string>{""});
  EXPECT_EQ(*parse_csv_record("a,"), (std::vector<std::string>{"a", ""}));
}

}  // namespace
}  // namespace stasim
