#include "models/framework.hpp"

#include <array>

namespace vtsim {
namespace {

const std::array<std::pair<std::string, Framework>, 3> kNames = {{
    {"pytorch", Framework::pytorch},
    {"tensorflow", Framework::tensorflow},
    {"mxnet", Framework::mxnet},
}};

}  // namespace

std::span<const std::pair<std::string, Framework>> framework_names() { return kNames; }

std::string_view to_string(Framework framework) {
  for (const auto& [name, value] : kNames) {
    if (value == framework) return name;
  }
  return "?";
}

}  // namespace vtsim
