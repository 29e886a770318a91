#pragma once
// Reads what calibrate/gpu_harness/host_dispatch.py measured of a host: PyTorch's cost per kernel it launches, in
// training steps so small that the GPU idles while the host issues the next kernel (docs/compute-model.md, "The host
// paces the kernels").
//
// Of its JSON (one file per call of the script): `machine` (cpu_model, torch), and `steps`, one record per
// configuration with its `mode` ("eager", "cuda graph", "torch.compile ...") and, per phase (forward, backward,
// optimizer, or replay), its mean `wall_us`, its `launches` (kernels, copies and memsets), `gpu_busy_us` and
// `launch_call_us` (a list).
// - eager: the forward and backward phases whose GPU was busy at most half their wall time (host-bound), pooled:
//   the sum of their wall times over the sum of their launches. The optimizer's phase is left out: its few
//   multi-tensor kernels carry a host cost per parameter tensor, not per launch.
// - CUDA graphs: the mean over the "cuda graph" records of (replay wall - GPU busy) / nodes (`gap_us_per_node`).
// - the CUDA launch call: the median over every phase of the eager records of `launch_call_us`, the durations of the
//   calls that launched each kernel of the profiled step (the harness keeps them since 2026-12-07; absent before).
// torch.compile's records are not read (vtsim does not model its fusion).

#include <string>
#include <string_view>
#include <vector>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// One log: its text and the file it came from (for messages).
struct HostDispatchLog {
  std::string text;
  std::string file;
};

/// The host section the logs measure, pooled over all of them. Throws InputError "FILE: PATH: ..." for a malformed
/// log, and when no log has a host-bound eager phase, or the logs name different CPUs or framework versions.
HostSection import_host_dispatch(const std::vector<HostDispatchLog>& logs);

}  // namespace vtsim::calibrate
