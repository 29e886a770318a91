#pragma once
// A job's compute resolved from its scenario: the catalogs' device, the calibration profile's measurements and the
// fitted constants applied, the memory fit checked (models/compute/job_compute.hpp holds what it makes). Part of
// resolve(): the input errors it raises are among the last a loaded scenario can have.

#include <cstddef>
#include <string>
#include <utility>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/compute/compute_model.hpp"
#include "models/compute/job_compute.hpp"

namespace vtsim {

struct Scenario;

/// The workload a job names: a catalog entry, its generated transformer or its trace's iteration.
Workload job_workload(const JobConfig& job);

/// The device one rank of job `index` runs on (a GPU, its vGPU profile's share or a MIG instance) and its name.
std::pair<DeviceCompute, std::string> job_device(const Scenario& scenario, std::size_t index);

/// Prepares job `index` of `scenario` with `calibration`'s measurements (scenario_calibration(); empty: the catalogs'
/// and the fit's figures only). Throws InputError "FILE: jobs[i]: ..." when the job does not fit in its device's
/// memory.
JobCompute plan_job_compute(const Scenario& scenario, std::size_t index, const CalibratedParameters& calibration);

}  // namespace vtsim
