#include "models/job_compute.hpp"

#include <algorithm>

#include "models/error.hpp"
#include "models/gpu_catalog.hpp"
#include "models/mig_catalog.hpp"
#include "models/vgpu_catalog.hpp"
#include "models/workload_catalog.hpp"

namespace vtsim {

Workload job_workload(const JobConfig& job) {
  if (job.transformer) return make_transformer(*job.transformer, "transformer", "GPT-style transformer");
  return *make_workload(job.workload_id);
}

namespace {

/// Replaces what the scenario's calibration profile measured: the achieved memory bandwidth sets the memory efficiency
/// (and a flop efficiency fitted to a published point of this GPU is fitted again with it, so the point still holds);
/// a measured large-GEMM efficiency replaces a flop efficiency that was only transferred from another workload or GPU.
void apply_calibration(const CalibratedParameters& calibration, const GpuSpec& gpu, const JobConfig& job,
                       JobCompute& compute) {
  ComputeEfficiency& efficiency = compute.efficiency;
  if (calibration.memory_bandwidth_Bps) {
    efficiency.memory_efficiency = std::min(1.0, calibration.memory_bandwidth_Bps->value / gpu.memory_bandwidth_Bps);
    efficiency.memory_provenance = calibration.memory_bandwidth_Bps->provenance;
    if (efficiency.calibrated) {
      for (const ThroughputPoint& point : published_single_gpu_throughput()) {
        if (point.workload_id != compute.workload.id || point.precision != job.precision || point.gpu_id != gpu.id) continue;
        const DeviceCompute device = whole_gpu(gpu, point.precision, gpu.memory_bytes);
        efficiency.flop_efficiency =
            calibrate_flop_efficiency(compute.workload, point, device, efficiency.memory_efficiency);
      }
    }
  }
  const auto gemm = calibration.gemm_flop_efficiency.find(job.precision);
  if (!efficiency.calibrated && gemm != calibration.gemm_flop_efficiency.end()) {
    efficiency.flop_efficiency = std::min(1.0, gemm->second.value);
    efficiency.provenance = "measured large-GEMM efficiency: " + gemm->second.provenance;
    efficiency.calibrated = true;
  }
}

}  // namespace

JobCompute plan_job_compute(const Scenario& scenario, std::size_t index) {
  const JobConfig& job = scenario.jobs[index];
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  JobCompute compute{job_workload(job), gpu.name, {}, {}, {}, {}, 0.0};
  switch (scenario.virtualization.mode) {
    case VirtualizationMode::mig: {
      const MigProfile& profile = *find_mig_profile(gpu.id, job.mig_profile);
      compute.device = mig_instance(gpu, profile, job.precision);
      compute.device_name = "MIG " + profile.id + " on " + gpu.name;
      break;
    }
    case VirtualizationMode::vgpu: {
      const VgpuProfile& profile = *find_vgpu_profile(job.vgpu_profile);
      compute.device = whole_gpu(gpu, job.precision, profile.memory_bytes);
      compute.device_name = "vGPU " + profile.id + " on " + gpu.name;
      break;
    }
    case VirtualizationMode::bare_metal:
    case VirtualizationMode::passthrough:
      compute.device = whole_gpu(gpu, job.precision, gpu.memory_bytes);
      break;
  }
  compute.memory = memory_footprint(compute.workload, job.batch_per_gpu, job.precision);
  const std::string shortfall = memory_shortfall(compute.memory, compute.device.memory_bytes, compute.device_name);
  if (!shortfall.empty()) {
    throw InputError(scenario.file + ": jobs[" + std::to_string(index) + "]: " + compute.workload.name + " at batch " +
                     std::to_string(job.batch_per_gpu) + " " + shortfall);
  }
  compute.efficiency = compute_efficiency(compute.workload, gpu, job.precision);
  apply_calibration(scenario.calibration, gpu, job, compute);
  compute.kernels = kernel_times(compute.workload, job.batch_per_gpu, job.precision, compute.device, compute.efficiency);
  compute.single_gpu_step_s = compute.kernels.total_s();
  return compute;
}

}  // namespace vtsim
