#pragma once
// How much communication that overlaps backward slows the compute it overlaps (applied while a collective is in
// flight, re-rated as collectives start and end: sim/training/training_job_state.hpp run_shared).
//
// NCCL's collectives run as CUDA kernels, one thread block per channel, each on its own SM; while they run, those SMs
// are not available to the training kernels. vtsim models that as the fraction of the device's SMs the collective's
// channels hold, with the channels NCCL runs for the job (models/collectives/nccl_tuning.hpp nccl_running_channels:
// twice its search's, or what jobs[i].nccl.channels forces). A profile's measured share (`vtsim calibrate probe nccl`)
// replaces it; without one the share is reported as uncalibrated: that a channel takes one whole SM's worth of compute
// is the mechanism, not a measurement.
//
// They also share the device's memory bandwidth, both ways. A ring collective moves, per rank, kHbmBytesPerWireByte
// bytes through its GPU's memory per byte it sends: NCCL's ring kernel reads the chunk it sends, and the chunk that
// arrives is written into its buffer by the peer (P2P write, or the NIC's DMA) and read back to be reduced. Kernels ask
// for the bytes they read and write over their time alone (models/compute/compute_model.hpp Kernel::bytes). When the
// two ask for more than the memory achieves, vtsim splits it max-min fairly (share_memory): the smaller demand is met,
// the other takes the rest. That fair split is an assumption (no published measurement of how HBM arbitrates between a
// collective and a kernel), reported as uncalibrated; the demands are derived, not fitted.

#include <algorithm>

namespace vtsim {

/// Fraction of a device's compute a running collective of `channels` channels takes from the kernels beside it, for
/// a device (a GPU or a MIG instance) of `sm_count` SMs; at most half. REQUIRES: sm_count >= 1.
inline double collective_sm_share(int channels, int sm_count) {
  return std::min(0.5, static_cast<double>(std::max(1, channels)) / sm_count);
}

/// Bytes through a rank's device memory per byte its ring sends: one read to send, one write and one read of what
/// arrives (derivation above).
inline constexpr double kHbmBytesPerWireByte = 3.0;

/// What the kernels and the collective of one GPU each get of its memory bandwidth, bytes/s.
struct MemoryShares {
  double kernels_Bps = 0;
  double collective_Bps = 0;
};

/// Max-min fair split of `capacity_Bps` between demands: both are met when they fit; else the smaller demand is met if
/// it is below half, the other taking the rest; else each gets half. REQUIRES: all arguments >= 0.
inline MemoryShares share_memory(double capacity_Bps, double kernels_Bps, double collective_Bps) {
  if (kernels_Bps + collective_Bps <= capacity_Bps) return {kernels_Bps, collective_Bps};
  const double half = capacity_Bps / 2;
  if (kernels_Bps <= half) return {kernels_Bps, capacity_Bps - kernels_Bps};
  if (collective_Bps <= half) return {capacity_Bps - collective_Bps, collective_Bps};
  return {half, half};
}

}  // namespace vtsim
