#pragma once
// How much communication that overlaps backward slows the compute it overlaps (applied while a collective is in
// flight, re-rated as collectives start and end: sim/training_job.cpp run_shared).
//
// NCCL's collectives run as CUDA kernels, one thread block per channel, each on its own SM; while they run, those SMs
// are not available to the training kernels. vtsim models that as the fraction of the device's SMs the collective's
// channels hold, with the channel count NCCL's model gives the job (sim/communicators.cpp nccl_communicator). A
// profile's measured share (`vtsim calibrate probe nccl`) replaces it; without one the share is reported as
// uncalibrated: that a channel takes one whole SM's worth of compute is the mechanism, not a measurement.

#include <algorithm>

namespace vtsim {

/// Fraction of a device's compute a running collective of `channels` channels takes from the kernels beside it, for
/// a device (a GPU or a MIG instance) of `sm_count` SMs; at most half. REQUIRES: sm_count >= 1.
inline double collective_sm_share(int channels, int sm_count) {
  return std::min(0.5, static_cast<double>(std::max(1, channels)) / sm_count);
}

}  // namespace vtsim
