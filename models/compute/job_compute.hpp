#pragma once
// What one job's ranks compute, prepared before any simulation (models/resolve/job_compute_plan.hpp makes it from a
// scenario): the workload, the device each rank runs on, the compute model's parameters with their provenance,
// per-layer kernel times, the memory footprint (checked against the device) and the same job's step time alone on one
// device of that kind.

#include <string>
#include <vector>

#include "models/compute/compute_model.hpp"
#include "models/compute/memory_model.hpp"
#include "models/compute/resolved_compute.hpp"
#include "models/compute/variability.hpp"
#include "models/parallel/model_partition.hpp"
#include "models/scenario/job_config.hpp"

namespace vtsim {

/// One virtual pipeline stage of a job with tensor, pipeline or sharded parallelism, as one of its GPUs runs it.
struct StageCompute {
  StagePart part;       ///< its layers, split over the tensor group, and their collectives
  KernelTimes kernels;  ///< one micro-batch; recomputation added to backward; the optimizer over its share (ZeRO)
};

/// One job's compute, per rank.
struct JobCompute {
  Workload workload;
  std::string device_name;       ///< "NVIDIA A100 40GB SXM4", "vGPU A100X-20C", "MIG 1g.5gb on NVIDIA A100 40GB SXM4"
  DeviceCompute device;
  ResolvedCompute resolved;      ///< the kernel model's constants and where each came from
  KernelTimes kernels;           ///< one iteration at the job's batch per GPU
  MemoryFootprint memory;
  /// The step time on one such device alone on an otherwise idle VM or host (its loader workers on every core but
  /// the training loop's, no network stack): its kernels, or its loader if slower.
  double single_gpu_step_s = 0;
  /// The part of single_gpu_step_s the device spends running kernels (the rest it waits for the host or the loader).
  double single_gpu_busy_s = 0;
  /// What single_gpu_step_s is, in a few words (the reference scaling efficiency compares with).
  std::string single_gpu_reference;
  /// Per-iteration spread of its compute: the scenario's, the profile's, else the workload class's default; 0 when
  /// the scenario turns variability off.
  StepTimeSpread spread;
  /// With parallelism: per virtual stage, what its GPUs run. `kernels` is then the whole model at one micro-batch on
  /// one device, and `single_gpu_step_s` the job's micro-batches through it with the job's recomputation, the
  /// optimizer unsharded: on one GPU as if it could hold the model when t x p > 1.
  std::vector<StageCompute> stages;
};

}  // namespace vtsim
