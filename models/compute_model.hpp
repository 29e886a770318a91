#pragma once
// Compute model: the time of each kernel of one training iteration on one device (DESIGN.md, "The model", item 3).
//
// A kernel's time is the roofline of the device's peak flop/s and memory bandwidth, each scaled by an efficiency:
//   time = max(F / (peak_flops x flop_efficiency), B / (memory_bandwidth x memory_efficiency)).
// Per layer, batch b, in the job's precision (weight bytes: 2 under fp16/bf16 AMP, which reads the 16-bit copy of the
// weights, 4 otherwise):
//   forward   F = b x forward_flop    B = b x activation_elements x activation_bytes + parameters x weight bytes
//   backward  F = b x backward_flop   B = 2 x forward B (it reads what forward read, the saved activations and the
//             output gradient, and writes the input gradient and the weight gradient: about twice forward's traffic);
//             a layer with backward_flop == 0 (frozen, nothing before it trained) runs no backward kernel: 0 s.
//   optimizer: one memory-bound pass over the trainable parameters (bytes per parameter in compute_model.cpp).
// The flop efficiency is fitted to published single-GPU throughput (compute_efficiency); the memory efficiency is
// one uncalibrated constant.

#include <string>
#include <vector>

#include "models/gpu_catalog.hpp"
#include "models/mig_catalog.hpp"
#include "models/precision.hpp"
#include "models/workload.hpp"

namespace vtsim {

/// What one rank's device offers a job in its precision.
struct DeviceCompute {
  std::string description;          ///< e.g. "NVIDIA A100 40GB SXM4, MIG 1g.5gb"
  double peak_flops = 0;            ///< dense peak for the job's precision, flop/s
  double memory_bandwidth_Bps = 0;  ///< device memory bandwidth, bytes/s
  double memory_bytes = 0;          ///< memory the job may use, bytes
};

/// A whole GPU: bare metal, passthrough or a time-sliced vGPU, which has all SMs while it runs but only its profile's
/// framebuffer (`memory_bytes`). REQUIRES: gpu.peak_flops(precision) has a value.
DeviceCompute whole_gpu(const GpuSpec& gpu, Precision precision, double memory_bytes);

/// A MIG instance: the MIG-enabled GPU has peak x mig_sm_count / sm_count (A100: 98 of 108 SMs), the instance its
/// SMs' share of that, and memory_slices / 8 of the bandwidth (NVIDIA MIG user guide: memory in eighths).
/// REQUIRES: profile.gpu_id == gpu.id, gpu.mig_sm_count > 0, gpu.peak_flops(precision) has a value.
DeviceCompute mig_instance(const GpuSpec& gpu, const MigProfile& profile, Precision precision);

/// The efficiencies a kernel runs at, and where they come from.
struct ComputeEfficiency {
  double flop_efficiency = 1.0;    ///< fraction of peak flop/s reached by the compute-bound part of a kernel, (0, 1]
  double memory_efficiency = 1.0;  ///< fraction of datasheet bandwidth reached by the memory-bound part, (0, 1]
  std::string provenance;          ///< the fit or transfer that gave the flop efficiency, for the result's "defaults"
  std::string memory_provenance;   ///< where memory_efficiency comes from; "" = the uncalibrated default
  bool calibrated = false;         ///< true only when fitted to a published point of this workload, precision and GPU
};

/// Kernel times of one iteration (one micro-batch) on one device.
struct KernelTimes {
  std::vector<double> forward_s;   ///< per layer, forward order
  std::vector<double> backward_s;  ///< per layer, forward order (backward runs them last to first)
  double optimizer_s = 0;          ///< the optimizer step

  /// Forward, backward and optimizer together, seconds.
  double total_s() const;
};

/// Time of every kernel of one iteration with `batch` samples. REQUIRES: batch >= 1, efficiencies in (0, 1].
KernelTimes kernel_times(const Workload& workload, int batch, Precision precision, const DeviceCompute& device,
                         const ComputeEfficiency& efficiency);

/// Bytes read and written per trainable parameter by one optimizer step (see compute_model.cpp for the derivation).
double optimizer_bytes_per_parameter(Optimizer optimizer, Precision precision);

/// A published single-GPU training throughput.
struct ThroughputPoint {
  std::string workload_id;      ///< catalog id
  std::string gpu_id;           ///< gpu_catalog() id
  Precision precision;          ///< AMP is fp16
  int batch = 1;                ///< samples per GPU per forward/backward pass (micro-batch)
  double samples_per_s = 0;     ///< published throughput
  std::string source;           ///< where it is published
  int accumulation_steps = 1;   ///< micro-batches per optimizer step (gradient accumulation); 1 when none
};

/// Every row of shared/reference/HARDWARE.md's single-GPU table, with its source. Built once, never changes.
const std::vector<ThroughputPoint>& published_single_gpu_throughput();

/// Samples/s the model predicts for one GPU running `point`'s workload, batch and accumulation at `efficiency`:
/// batch / (forward + backward + optimizer / accumulation_steps).
double modelled_samples_per_s(const Workload& workload, const ThroughputPoint& point, const DeviceCompute& device,
                              const ComputeEfficiency& efficiency);

/// The flop efficiency in (0, 1] at which modelled_samples_per_s matches point.samples_per_s, found by bisection.
/// When even efficiency 1 is slower than the point (its memory-bound share alone takes too long) it returns 1: the
/// caller can tell by modelled_samples_per_s(..., 1) < samples_per_s, and compute_efficiency says so in provenance.
double calibrate_flop_efficiency(const Workload& workload, const ThroughputPoint& point, const DeviceCompute& device,
                                 double memory_efficiency);

/// Fraction of datasheet memory bandwidth every memory-bound kernel reaches: uncalibrated (compute_calibration.cpp).
double default_memory_efficiency();

/// The efficiencies for `workload` on `gpu` in `precision`: fitted to the published point of this workload, precision
/// and GPU when there is one, else transferred (compute_calibration.cpp lists the rules) and marked uncalibrated.
/// Fits are computed once per process and reused. REQUIRES: gpu.peak_flops(precision) has a value.
ComputeEfficiency compute_efficiency(const Workload& workload, const GpuSpec& gpu, Precision precision);

}  // namespace vtsim
