#include "models/core/control_characters.hpp"

#include <gtest/gtest.h>

#include "models/core/error.hpp"

#include <string>

namespace vtsim {
namespace {

TEST(ControlCharacters, FindsEveryC0ControlDeleteAndC1ButNotText) {
  for (int byte = 0; byte < 0x20; ++byte) {
    const std::string text = "ab" + std::string(1, static_cast<char>(byte));
    EXPECT_EQ(find_control_character(text), 2u) << "byte " << byte;
  }
  EXPECT_EQ(find_control_character("ab\x7f"), 2u);
  EXPECT_EQ(find_control_character("a\xc2\x9b" "31m"), 1u);  // U+009B, CSI: an escape sequence of its own
  EXPECT_EQ(find_control_character("a\xc2\x85"), 1u);         // U+0085, next line
  // Printable text, UTF-8 included: U+00A0 and U+00E9 share the lead byte 0xC2/0xC3 with the C1 range.
  EXPECT_FALSE(has_control_character("transport=pvrdma, gpus=8 ~!@#$%^&*()'\"`\\"));
  EXPECT_FALSE(has_control_character("caf\xc3\xa9 \xc2\xa0 \xe2\x80\x93"));
  EXPECT_FALSE(has_control_character("a\xc2"));  // a truncated sequence is not a control
}

TEST(ControlCharacters, PrintableEscapesEachControlVisibly) {
  EXPECT_EQ(printable("x\nsystem \"touch PWNED\"\n#"), "x\\nsystem \"touch PWNED\"\\n#");
  EXPECT_EQ(printable("\x1b[2J\a\r\t"), "\\x1b[2J\\x07\\r\\t");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\x7f"), "\\x7f");
  EXPECT_EQ(printable("a\xc2\x9b" "31m"), "a\\u009b31m");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(printable(""), "");
}

TEST(ControlCharacters, AnInputErrorIsOneLineWhateverTextItQuotes) {
  // A reader quoting a cell as it came: a NUL would end what() there, a newline split the message, an ESC clear the
  // screen.
  const InputError error("ops.csv:2: unknown operator '" + std::string("re\0lu\n\x1b[2J", 10) + "'");
  EXPECT_STREQ(error.what(), "ops.csv:2: unknown operator 're\\x00lu\\n\\x1b[2J'");
  // Escaping twice changes nothing: a message built from an escaped quote stays as it is.
  EXPECT_EQ(InputError(error.what()).what(), std::string(error.what()));
}

}  // namespace
}  // namespace vtsim
