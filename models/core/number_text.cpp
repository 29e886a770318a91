#include "models/core/number_text.hpp"

#include <cstdio>

namespace vtsim {

std::string format_number(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace vtsim
