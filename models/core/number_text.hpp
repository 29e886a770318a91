#pragma once
// Numbers in the text of notes and messages, one way.

#include <string>

namespace vtsim {

/// `value` printed with the printf `format` (default three significant digits, "%.3g").
std::string format_number(double value, const char* format = "%.3g");

}  // namespace vtsim
