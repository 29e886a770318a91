#pragma once
// The NCCL probe (`vtsim calibrate probe nccl`): allreduce over all local GPUs in one process (ncclCommInitAll), over
// message sizes, reported as nccl-tests reports it: time per out-of-place float-sum allreduce, algbw = bytes / time,
// busbw = algbw x 2(n-1)/n (collective_bandwidth.hpp). With two GPUs or more it also measures how much a running
// allreduce slows a GEMM beside it on GPU 0: collective_sm_share = 1 - time alone / time beside the allreduce, the
// slowdown models/compute/interference.hpp applies (SMs and memory bandwidth together).
// The hardware sits behind NcclBackend; nccl_backend.cpp implements it with CUDA, cuBLAS and NCCL.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/gpu_probe.hpp"
#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// Timings of a GEMM on GPU 0 alone and beside a running allreduce: seconds per batch, each.
struct InterferenceSample {
  std::vector<double> alone_s;
  std::vector<double> beside_allreduce_s;
};

/// The hardware the NCCL probe measures. Timings are seconds per batch, after an untimed warm-up batch.
class NcclBackend {
 public:
  virtual ~NcclBackend() = default;
  /// The visible devices, all of which take part; empty when there are none.
  virtual std::vector<GpuDeviceInfo> devices() = 0;
  /// NCCL and driver versions, e.g. "NCCL 2.18.3; NVIDIA driver 535.104.05".
  virtual std::string versions() = 0;
  /// Batches of `batch` out-of-place float-sum allreduces of `bytes` over all devices.
  virtual std::vector<double> time_allreduce(std::int64_t bytes, int batch, int repetitions) = 0;
  /// Batches of fp32 n x n x n GEMMs on device 0, alone and while allreduces of `bytes` run on all devices.
  virtual InterferenceSample time_gemm_beside_allreduce(std::int64_t n, std::int64_t bytes, int batch,
                                                        int repetitions) = 0;
};

/// What to measure; the defaults follow nccl-tests' (-b 8 -e 512M -f 2, 20 iterations).
struct NcclProbeOptions {
  std::int64_t min_bytes = 8;
  std::int64_t max_bytes = std::int64_t{512} << 20;
  int iterations = 20;           ///< allreduces per timed batch
  int repetitions = 3;           ///< batches; the median counts
  bool interference = true;      ///< measure collective_sm_share
  std::int64_t interference_gemm_n = 4096;
  std::int64_t interference_bytes = std::int64_t{256} << 20;
  int interference_batch = 20;
};

/// The probe's result.
struct NcclProbeResult {
  CollectiveSeries series;
  std::optional<double> collective_sm_share;
  std::vector<std::string> notes;
};

/// Runs the allreduce sweep (and the interference test with >= 2 GPUs). Throws DeviceNotFound("no CUDA device
/// found") when there is no GPU.
NcclProbeResult probe_nccl(NcclBackend& backend, const NcclProbeOptions& options);

/// collective_sm_share from an interference sample: 1 - median alone / median beside, clamped to [0, 0.99].
double collective_sm_share(const InterferenceSample& sample);

}  // namespace vtsim::calibrate
