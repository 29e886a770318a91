#pragma once
// How a GPU is handed to the workload, apart from the scenario so that the engine's topology needs no more.

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace vtsim {

/// How a GPU is handed to the workload.
enum class VirtualizationMode {
  bare_metal,   ///< no hypervisor
  passthrough,  ///< whole GPU passed through to a VM (DirectPath I/O)
  vgpu,         ///< NVIDIA vGPU, time-sliced
  mig,          ///< NVIDIA MIG instances (MIG-backed vGPU)
};

/// Every mode with its name in scenario files.
std::span<const std::pair<std::string, VirtualizationMode>> virtualization_mode_names();
/// "bare_metal", "passthrough", "vgpu" or "mig".
std::string_view to_string(VirtualizationMode mode);

}  // namespace vtsim
