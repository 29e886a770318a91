#include "tools/text_table.hpp"

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

}  // namespace
}  // namespace vtsim::tools
