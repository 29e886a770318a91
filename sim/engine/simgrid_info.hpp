#pragma once
// What the linked SimGrid library is.

#include <string>

namespace vtsim::sim {

/// The version of the SimGrid library vtsim runs on, e.g. "3.32.0".
std::string simgrid_version();

}  // namespace vtsim::sim
