// csv_cell_test: plain text stays as it is; text with a separator, a quote or a line break is quoted with the
// quotes doubled.
#include "reference/cli/csv_cell.h"

#include <gtest/gtest.h>

namespace lqcd {
namespace {

TEST(CsvCell, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(CsvCell("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(CsvCell(""), "");
  EXPECT_EQ(CsvCell("bicgstab-reliable:half/12:0.1"), "bicgstab-reliable:half/12:0.1");
  EXPECT_EQ(CsvCell("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvCell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvCell("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvCell("cr\r"), "\"cr\r\"");
}

}  // namespace
}  // namespace lqcd
