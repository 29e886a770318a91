#pragma once
// A scenario's calibration profile, read and applied (issue 29 item 1): the scenario keeps only the profile's path
// and whether it may have measured another box; what the profile calibrates is derived here, once per resolve(), and
// never stored in the scenario. The profile's own errors name the profile's file (load_calibration_profile); whether
// it fits the scenario's cluster is refused naming the scenario's file and its calibration_profile key.

#include <optional>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/calibration/calibration_profile.hpp"

namespace vtsim {

struct Scenario;

/// The calibration profile `scenario` names (calibration_profile), read; nullopt when it names none. Throws the
/// InputError load_calibration_profile throws for a file that is not a valid profile.
std::optional<CalibrationProfile> load_scenario_profile(const Scenario& scenario);

/// What `profile` calibrates on `scenario`'s cluster (calibrated_parameters), its mismatches with the cluster's box
/// (calibration_mismatches) listed in the result; empty parameters for a null profile. Throws InputError naming the
/// scenario's file and calibration_profile when the profile's gpu section does not name the catalog GPU it measured
/// (its GPU measurements could then be any GPU's), or when it measured another box and the scenario does not allow it
/// (calibration_allow_mismatch); throws check_context_switch's InputError when the profile's context switch does not
/// fit in the scenario's time slice. REQUIRES: a scenario the loader accepted.
CalibratedParameters scenario_calibration(const Scenario& scenario, const CalibrationProfile* profile);

/// scenario_calibration(scenario, the profile load_scenario_profile(scenario) reads): what a run of the scenario takes
/// from its profile, and the errors applying it raises. The commands that load several scenarios before simulating
/// any (`vtsim run --compare`, `vtsim plan`, `vtsim validate`) call it on each, so that a profile that does not fit
/// fails once, up front.
CalibratedParameters load_scenario_calibration(const Scenario& scenario);

}  // namespace vtsim
