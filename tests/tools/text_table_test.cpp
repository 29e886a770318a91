#include "tools/report/text_table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace vtsim::tools {
namespace {

TEST(TextTable, ShowsControlCharactersEscapedAndAlignsOnWhatIsShown) {
  // A job name as a scenario before the loader refused it: clear the screen, ring the bell, forge a line.
  TextTable table({"", "a\x1b[2J"});
  table.add_row({"job\a", "1"});
  table.add_row({"x\nfake row", "22"});
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(),
            "             a\\x1b[2J\n"
            "-----------  --------\n"
            "job\\x07             1\n"
            "x\\nfake row        22\n");
}

TEST(TextTable, SignedNumbersAlignLikeOtherNumbers) {
  TextTable table({"family", "median error"});
  table.add_row({"gemm", "-15.6%"});
  table.add_row({"softmax", "+4%"});
  table.add_row({"label", "+x"});  // a plus sign before text is text
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(),
            "family   median error\n"
            "-------  ------------\n"
            "gemm           -15.6%\n"
            "softmax           +4%\n"
            "label    +x\n");
}

}  // namespace
}  // namespace vtsim::tools
