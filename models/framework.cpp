#include "models/framework.hpp"

#include <array>

namespace vtsim {
namespace {

constexpr std::array<std::pair<std::string_view, Framework>, 3> kNames = {{
    {"pytorch", Framework::pytorch},
    {"tensorflow", Framework::tensorflow},
    {"mxnet", Framework::mxnet},
}};

}  // namespace

std::span<const std::pair<std::string_view, Framework>> framework_names() { return kNames; }

std::string_view to_string(Framework framework) {
  for (const auto& [name, value] : kNames) {
    if (value == framework) return name;
  }
  return "?";
}

std::optional<Framework> parse_framework(std::string_view text) {
  for (const auto& [name, value] : kNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

}  // namespace vtsim
