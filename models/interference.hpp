#pragma once
// How much communication that overlaps backward slows the compute it overlaps (applied while a collective is in
// flight, re-rated as collectives start and end: sim/training_job.cpp run_shared).
//
// NCCL's collectives run as CUDA kernels, one thread block per channel, each on its own SM; while they run, those SMs
// are not available to the training kernels. vtsim models that as a fraction of the GPU's compute taken by a collective
// in flight. The value is a calibration value: no published figure gives it. The default assumes 8 channels (NCCL
// picks on the order of 8 to 16 rings on NVLink systems; NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS in the NCCL
// environment documentation) on the GPU's SM count, and is reported as uncalibrated.

#include <algorithm>


namespace vtsim {

/// Channels (one SM each) a running allreduce is assumed to occupy. Uncalibrated.
inline constexpr int kAssumedCollectiveChannels = 8;

/// Fraction of a device's compute a running allreduce takes from the kernels beside it, for a device (a GPU or a MIG
/// instance) of `sm_count` SMs; at most half. Uncalibrated default.
inline double collective_sm_share(int sm_count) {
  return std::min(0.5, static_cast<double>(kAssumedCollectiveChannels) / sm_count);
}

}  // namespace vtsim
