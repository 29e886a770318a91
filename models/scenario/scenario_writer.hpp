#pragma once
// Writing a scenario back as JSON, every default filled in (what `vtsim check` prints).

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"

namespace vtsim {

/// The scenario in the file format, with every field explicit. load_scenario() of the result gives back an equal
/// scenario (the tests hold it to that).
nlohmann::json scenario_to_json(const Scenario& scenario);

}  // namespace vtsim
