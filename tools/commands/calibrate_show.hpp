#pragma once
// `vtsim calibrate show PROFILE [--format table|json]`: a calibration profile for people (one table per section, then
// what the simulator takes from it) or as JSON ({"profile": ..., "calibrated_parameters": ...}).

#include <ostream>

#include <nlohmann/json.hpp>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/calibration/calibration_profile.hpp"

namespace vtsim::tools {

/// Prints the profile's sections as tables, then the calibrated parameters and the notes about unused measurements.
void print_profile_tables(std::ostream& out, const CalibrationProfile& profile);

/// The calibrated parameters as JSON, SI values with units in the keys, each with its provenance.
nlohmann::json calibrated_parameters_json(const CalibratedParameters& parameters);

}  // namespace vtsim::tools
