#pragma once
// Control characters in text that comes from input (names, labels, paths, CSV cells): C0 (0x00-0x1F), DEL (0x7F),
// and the C1 controls U+0080-U+009F written in UTF-8 (0xC2 0x80-0x9F). A terminal acts on them (ESC and U+009B start
// escape sequences that move the cursor, retitle the window or rewrite what was printed), and a script reads a
// newline as the end of a command. Names refuse them; any other text from input escapes them before it is shown.

#include <cstddef>
#include <string>
#include <string_view>

namespace vtsim {

/// The byte offset of the first control character in `text`, or std::string_view::npos when it has none.
std::size_t find_control_character(std::string_view text);

/// Whether `text` holds a control character.
inline bool has_control_character(std::string_view text) {
  return find_control_character(text) != std::string_view::npos;
}

/// `text` with every control character written as a visible escape: \n, \r, \t, \xHH for the other C0 controls and
/// DEL, \u0080-\u009f for the C1 controls. Other bytes, UTF-8 text included, are kept as they are.
std::string printable(std::string_view text);

}  // namespace vtsim
