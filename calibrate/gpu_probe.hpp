#pragma once
// The GPU probe (`vtsim calibrate probe gpu`): what it measures, in what order and how the timings become a profile's
// gpu section. The hardware sits behind GpuBackend (cf. LevelDB's Env), so the tests replay recorded timings and the
// CUDA implementation (cuda_gpu_backend.cpp, built with CUDA) stays a thin layer of device calls.
//
// Measurements (each timing is the median of `repetitions` batches, after one warm-up batch):
//   GEMM       cublasGemmEx C = A B, square sizes, per precision: fp32 (CUDA cores), tf32, fp16 and bf16 (tensor
//              cores, fp32 accumulate; tf32/bf16 from compute capability 8.0). tflops = 2 n^3 / time.
//   memory     device-to-device cudaMemcpy; bandwidth counts bytes read + written (2 x copied), as CUDA's
//              bandwidthTest sample does, comparable to the datasheet's memory bandwidth.
//   h2d / d2h  cudaMemcpy from / to pinned host memory.
//   p2p        cudaMemcpyPeer between every ordered pair of GPUs: bandwidth of large copies, latency of 4-byte copies
//              issued back to back on one stream (each waits for the previous: a copy's latency, launch included).
//   launch     back-to-back tiny asynchronous operations (4-byte cudaMemsetAsync) on one stream: time per operation.
//   sharing    two processes each run the same GEMM loop on GPU 0 at once; the GPU time-slices them. The wall time
//              beyond twice the time alone, divided by the interruptions the processes saw (a kernel interval more
//              than 1.5x the median alone), is the cost of one context switch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/calibration/calibration_profile.hpp"
#include "models/core/precision.hpp"

namespace vtsim::calibrate {

/// One visible CUDA device.
struct GpuDeviceInfo {
  int index = 0;
  std::string name;               ///< cudaDeviceProp::name
  int compute_major = 0;          ///< compute capability
  int compute_minor = 0;
  double memory_bytes = 0;        ///< total device memory
};

/// The kinds of copy the probe times.
enum class CopyKind { device_to_device, host_to_device, device_to_host, peer };

/// What the two-process sharing test runs: `kernels` GEMMs of size n x n x n in fp32, in each process.
struct SharingPlan {
  int device = 0;
  std::int64_t n = 1024;
  int kernels = 1000;
};

/// What one process of the sharing test saw.
struct SharingProcess {
  double start_s = 0;                   ///< CLOCK_MONOTONIC when its loop started (same clock in both processes)
  double end_s = 0;                     ///< and when its last kernel ended
  std::vector<double> intervals_s;      ///< time between consecutive kernel ends
};

/// The sharing test's record: the loop alone, then two processes at once.
struct SharingSample {
  SharingProcess alone;
  std::vector<SharingProcess> together;  ///< two processes
};

/// The hardware the GPU probe measures. Each timing call returns the seconds of each of `repetitions` batches of
/// `batch` operations, after one untimed warm-up batch. Errors of the device throw ProbeFailed.
class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  /// The visible devices; empty when there are none.
  virtual std::vector<GpuDeviceInfo> devices() = 0;
  /// Driver and library versions, e.g. "NVIDIA driver 550.54.15; CUDA runtime 12.4; cuBLAS 12.4.2".
  virtual std::string driver_version() = 0;
  /// Batches of square n x n x n GEMMs in `precision` on `device`.
  virtual std::vector<double> time_gemms(int device, Precision precision, std::int64_t n, int batch,
                                         int repetitions) = 0;
  /// Batches of copies of `bytes`: on/to/from `device`, or from `device` to `peer` for CopyKind::peer.
  virtual std::vector<double> time_copies(CopyKind kind, int device, int peer, std::int64_t bytes, int batch,
                                          int repetitions) = 0;
  /// Batches of tiny asynchronous operations on `device`.
  virtual std::vector<double> time_launches(int device, int batch, int repetitions) = 0;
  /// The two-process sharing test; nullopt when it cannot run here.
  virtual std::optional<SharingSample> share_gpu(const SharingPlan& plan) = 0;
  /// `nvidia-smi topo -m` output, or "" when nvidia-smi is not available.
  virtual std::string topology_text() = 0;
};

/// What to measure. Defaults take about a minute on an A100.
struct GpuProbeOptions {
  std::vector<std::int64_t> gemm_sizes = {512, 1024, 2048, 4096, 8192};  ///< n of the square GEMMs
  std::vector<Precision> precisions = {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16};
  int gemm_batch = 10;                                    ///< GEMMs per timed batch
  std::int64_t copy_bytes = std::int64_t{256} << 20;      ///< device, host and peer copies
  int copy_batch = 5;
  std::int64_t small_copy_bytes = 4;                      ///< peer latency
  int small_copy_batch = 1000;
  int launch_batch = 10000;                               ///< tiny operations per batch
  int repetitions = 5;
  bool sharing = true;                                    ///< run the two-process sharing test
  double sharing_kernel_s = 0.5e-3;                       ///< target duration of one GEMM of the sharing test
  double sharing_loop_s = 0.5;                            ///< target duration of one process's loop alone
};

/// The probe's result: the gpu section, the topology nvidia-smi gave (if any), and what could not be measured.
struct GpuProbeResult {
  GpuSection gpu;
  std::optional<TopologySection> topology;
  std::vector<std::string> notes;
};

/// Runs every measurement of `options` on all visible GPUs (GEMM, memory, copies and launch on GPU 0; P2P over
/// every pair). Throws DeviceNotFound("no CUDA device found") when there is none.
GpuProbeResult probe_gpu(GpuBackend& backend, const GpuProbeOptions& options);

/// Which precisions a device of compute capability `major` runs: fp32 and fp16 always, tf32 and bf16 from 8.0.
bool supports(int compute_major, Precision precision);

/// The plan of the sharing test: the fp32 GEMM size whose time is about `kernel_s` at `fp32_flops`, a multiple of
/// 256 in [256, 8192], and enough kernels for a loop of about `loop_s`.
SharingPlan plan_sharing(double fp32_flops, double kernel_s, double loop_s);

/// The cost of one context switch from a sharing sample: (together wall time - 2 x alone) / interruptions, where an
/// interruption is a kernel interval longer than 1.5x the median interval alone. nullopt when there was none or
/// when the processes did not slow each other (they overlapped, e.g. under MPS).
std::optional<double> context_switch_s(const SharingSample& sample);

}  // namespace vtsim::calibrate
