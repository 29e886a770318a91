#pragma once
// The scenario `vtsim run` and `vtsim check` use when given none: scenarios/a100-nvlink-bert.json, compiled in.

#include <string_view>

namespace vtsim::tools {

/// The name the default scenario is reported under in messages.
inline constexpr std::string_view kDefaultScenarioName = "scenarios/a100-nvlink-bert.json (built in)";

/// The JSON text of the default scenario.
std::string_view default_scenario_json();

}  // namespace vtsim::tools
