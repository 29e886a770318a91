#pragma once
// Rules a scenario must meet across its jobs, checked once every job is read. Each failure is an InputError naming
// the file and the JSON path of the job that broke the rule.

#include "models/scenario/scenario.hpp"

namespace vtsim {

/// The jobs on each physical GPU can share it: only vGPU or MIG modes share; a vGPU profile allows at most its maximum
/// per GPU, and one profile size per GPU unless mixed_sizes; MIG instances need a placement NVIDIA allows.
void check_gpu_sharing(const Scenario& scenario);

/// Every job's GPUs can reach each other: NICs for jobs that span hosts, and RoCE v1 only within one rack (it is an
/// Ethernet link-layer protocol and cannot leave one broadcast domain).
void check_transport_reach(const Scenario& scenario);

/// Refuses, naming the scenario's file and virtualization.scheduler.context_switch_us, a vgpu scenario whose context
/// switch (context_switch() with `calibration`) takes more than 90% of the time slice: a slot whose useful part tends
/// to zero makes a vGPU advance by almost nothing per slot, so a short run would take the scheduler millions of
/// slots. The loader checks what the scenario alone decides; applying a profile (models/resolve/
/// scenario_calibration.hpp) checks its measurement.
void check_context_switch(const Scenario& scenario, const CalibratedParameters& calibration);

}  // namespace vtsim
