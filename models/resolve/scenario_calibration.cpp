#include "models/resolve/scenario_calibration.hpp"

#include <string>
#include <utility>
#include <vector>

#include "models/core/error.hpp"
#include "models/scenario/scenario.hpp"
#include "models/scenario/scenario_checks.hpp"

namespace vtsim {

std::optional<CalibrationProfile> load_scenario_profile(const Scenario& scenario) {
  if (scenario.calibration_profile.empty()) return std::nullopt;
  return load_calibration_profile(scenario.calibration_profile);
}

CalibratedParameters scenario_calibration(const Scenario& scenario, const CalibrationProfile* profile) {
  if (profile == nullptr) return {};
  const std::string where = scenario.file + ": calibration_profile: ";
  const HostConfig& host = scenario.cluster.host;
  // GPU measurements apply to the GPU model they were taken on: a profile that does not say which it was cannot be
  // checked against the cluster's, so it is refused rather than applied to any GPU.
  if (profile->gpu && profile->gpu->catalog_gpu.empty()) {
    const std::string missing =
        "the profile's gpu section does not name the catalog GPU it measured (gpu.catalog_gpu, one of `vtsim catalog "
        "gpus`, e.g. \"";
    throw InputError(where + missing + host.gpu_model +
                     "\"), so it cannot be checked against the cluster's GPUs; add it to the profile");
  }
  CalibratedParameters calibration = calibrated_parameters(*profile);
  // Measurements apply to the box they were taken on: another GPU model, GPU count or link class is refused unless
  // the scenario allows it, and then every result lists the differences.
  std::vector<std::string> mismatches = calibration_mismatches(
      *profile, {.gpu_model = host.gpu_model, .gpus_per_host = host.gpus, .nvlink_present = host.nvlink_present});
  if (!mismatches.empty() && !scenario.calibration_allow_mismatch) {
    const std::size_t more = mismatches.size() - 1;
    throw InputError(where + "the profile measured another box than the cluster's: " + mismatches.front() +
                     (more > 0 ? " (and " + std::to_string(more) + " more)" : "") +
                     "; calibrate on the box you simulate, or use it anyway with calibration_allow_mismatch: true "
                     "(vtsim run --allow-mismatch), which every result then reports");
  }
  calibration.mismatches = std::move(mismatches);
  // A measured context switch must fit in the time slice as the scenario's own must (the loader checked that one).
  check_context_switch(scenario, calibration);
  return calibration;
}

CalibratedParameters load_scenario_calibration(const Scenario& scenario) {
  const std::optional<CalibrationProfile> profile = load_scenario_profile(scenario);
  return scenario_calibration(scenario, profile ? &*profile : nullptr);
}

}  // namespace vtsim
