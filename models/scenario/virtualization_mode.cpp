#include "models/scenario/virtualization_mode.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, VirtualizationMode>, 4> kModes = {{
    {"bare_metal", VirtualizationMode::bare_metal},
    {"passthrough", VirtualizationMode::passthrough},
    {"vgpu", VirtualizationMode::vgpu},
    {"mig", VirtualizationMode::mig},
}};

}  // namespace

std::span<const std::pair<std::string, VirtualizationMode>> virtualization_mode_names() { return kModes; }

std::string_view to_string(VirtualizationMode mode) { return name_of(kModes, mode); }

}  // namespace vtsim
