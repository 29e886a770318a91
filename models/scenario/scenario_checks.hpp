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

}  // namespace vtsim
