#pragma once
// Fitted constants committed as JSON and compiled in (models/CMakeLists.txt generates one source per file from
// committed_json.cpp.in). Each is what a command refits from the shipped data, and a test holds the refit to it.

#include <string_view>

namespace vtsim {

/// models/compute/kernel_parameters.json as committed (`vtsim kernels --fit ... --write` rewrites it).
std::string_view kernel_parameters_json();
/// models/compute/compute_fit.json as committed (`vtsim validate --write-fit models/compute/compute_fit.json` rewrites
/// it).
std::string_view compute_fit_json();

}  // namespace vtsim
