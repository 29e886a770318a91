#pragma once
// The text of models/kernel_parameters.json, compiled in (kernel_parameters_json.cpp.in).

#include <string_view>

namespace vtsim {

/// models/kernel_parameters.json as committed.
std::string_view kernel_parameters_json();

}  // namespace vtsim
