// The one CSV reader (support/Csv): rows keep their lines, cells their trimmed text and columns, headers are
// checked for empty and repeated names, and a cell is a number only when all of it is one.
#include "support/Csv.h"

#include <gtest/gtest.h>

namespace dmci {
namespace {

TEST(Csv, BlankAndCommentLinesAreSkippedAndRowsKeepTheirLines) {
  auto rows = readCsv("# a comment\nx, y\n\n  # indented comment\n1,2\r\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 2u);
  EXPECT_EQ(rows[1].line, 5u);
  EXPECT_EQ(rows[1].length, 4u);  // "1,2\r": the carriage return counts
}

TEST(Csv, CellsAreTrimmedAndKeepTheColumnOfTheirFirstCharacter) {
  auto rows = readCsv("a,  b ,\t c\r");
  ASSERT_EQ(rows.size(), 1u);
  const auto& c = rows[0].cells;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].text, "a");
  EXPECT_EQ(c[0].col, 1u);
  EXPECT_EQ(c[1].text, "b");
  EXPECT_EQ(c[1].col, 5u);
  EXPECT_EQ(c[2].text, "c");
  EXPECT_EQ(c[2].col, 10u);
}

TEST(Csv, AnEmptyCellKeepsTheColumnWhereItStarts) {
  auto rows = readCsv("1,,3");
  ASSERT_EQ(rows[0].cells.size(), 3u);
  EXPECT_EQ(rows[0].cells[1].text, "");
  EXPECT_EQ(rows[0].cells[1].col, 3u);
}

TEST(Csv, AHeaderWithAnEmptyOrRepeatedNameIsAProblemAtThatCell) {
  auto ok = readCsv("x,y");
  EXPECT_FALSE(checkHeader(ok[0], "column").has_value());
  auto empty = readCsv("\nx,,y");
  auto p = checkHeader(empty[0], "column");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->line, 2u);
  EXPECT_EQ(p->col, 3u);
  EXPECT_EQ(p->message, "empty column name in the header");
  auto twice = readCsv("x, y, x");
  p = checkHeader(twice[0], "parameter");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->col, 7u);
  EXPECT_EQ(p->message, "parameter 'x' appears twice in the header");
}

TEST(Csv, AHeaderNameThatDoesNotReadAsOnePlainSymbolIsAProblemAtThatCell) {
  // libFuzzer's reproducer (properties/libfuzzer/crashes/datatable/control-byte-header): a control byte in a name.
  auto control = readCsv("\x01not a column\n2");
  auto p = checkHeader(control[0], "column");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->line, 1u);
  EXPECT_EQ(p->col, 1u);
  EXPECT_EQ(p->message.rfind("column name \"\\x1;not a column\" in the header is not a plain symbol", 0), 0u)
      << p->message;
  for (const char* bad : {"t,a b", "t,\"YEAR\"", "t,1", "t,(x)", "t,x;y", "t,#t", "t,|x|", "t,'x"}) {
    auto row = readCsv(bad);
    p = checkHeader(row[0], "parameter");
    ASSERT_TRUE(p.has_value()) << bad;
    EXPECT_EQ(p->col, 3u) << bad;
    EXPECT_NE(p->message.find("is not a plain symbol"), std::string::npos) << p->message;
  }
  for (const char* good : {"t,y", "m_0,theta1", "x-y,a->b,*,+,<=?,ε"})
    EXPECT_FALSE(checkHeader(readCsv(good)[0], "column")) << good;
}

TEST(Csv, ACellIsANumberOnlyWhenAllOfItIsOne) {
  EXPECT_EQ(csvNumber("2.5"), 2.5);
  EXPECT_EQ(csvNumber("-1e3"), -1000.0);
  EXPECT_FALSE(csvNumber("").has_value());
  EXPECT_FALSE(csvNumber("2.5x").has_value());
  EXPECT_FALSE(csvNumber("x").has_value());
}

}  // namespace
}  // namespace dmci
