#pragma once
// The scenario spelling of an enumerator, from the table of (spelling, value) pairs its loader accepts: one table
// serves both reading (JsonValue::as_enum) and writing (to_string), so the two cannot drift apart.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace vtsim {

/// The spelling paired with `value` in `names`; "?" when it has none (a table missing an enumerator).
template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<std::string, Enum>, N>& names, Enum value) {
  for (const auto& [name, enumerator] : names) {
    if (enumerator == value) return name;
  }
  return "?";
}

}  // namespace vtsim
