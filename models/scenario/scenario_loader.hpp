#pragma once
// Loading a scenario: JSON text -> overrides -> strict parse -> cross-field validation -> a fully defaulted Scenario.

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"

namespace vtsim {

/// Loads the scenario in `file`, applying `overrides` ("path=value", as `--set` takes them) before validation.
/// Throws InputError naming the file and the JSON path on any bad input. A calibration profile is only checked to be
/// a file: reading and applying it is resolve()'s (models/resolve/scenario_calibration.hpp).
Scenario load_scenario_file(const std::string& file, std::span<const std::string> overrides = {});

/// Loads a scenario from parsed JSON. `file` names it in error messages and gives the default name; relative paths in
/// it (calibration_profile) resolve against `base_dir`.
Scenario load_scenario(const nlohmann::json& json, const std::string& file, const std::string& base_dir);

}  // namespace vtsim
