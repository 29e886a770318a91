#include "models/core/control_characters.hpp"

#include <cstdio>

namespace vtsim {
namespace {

constexpr unsigned char kDelete = 0x7F;
constexpr unsigned char kC1Lead = 0xC2;  // UTF-8 of U+0080-U+00BF: 0xC2 then 0x80-0xBF; the controls end at 0x9F

bool is_c0_or_delete(unsigned char byte) { return byte < 0x20 || byte == kDelete; }

// Whether a C1 control (0xC2 0x80-0x9F) starts at `i`.
bool is_c1_at(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) == kC1Lead && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

}  // namespace

std::size_t find_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_c0_or_delete(static_cast<unsigned char>(text[i])) || is_c1_at(text, i)) return i;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    char escape[8];
    if (byte == '\n') {
      shown += "\\n";
    } else if (byte == '\r') {
      shown += "\\r";
    } else if (byte == '\t') {
      shown += "\\t";
    } else if (is_c0_or_delete(byte)) {
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(byte));
      shown += escape;
    } else if (is_c1_at(text, i)) {
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(text[i + 1])));
      shown += escape;
      ++i;
    } else {
      shown += text[i];
    }
  }
  return shown;
}

}  // namespace vtsim
