#include "models/job_compute.hpp"

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
  compute.parameters = resolve_compute(gpu, job.precision, job.framework, compute.workload, job.batch_per_gpu,
                                       scenario.virtualization.vm_cpu_cores, published_compute_fit(),
                                       scenario.calibration, job.host_dispatch_s);
  compute.kernels = kernel_times(compute.workload, job.batch_per_gpu, job.precision, compute.device,
                                 compute.parameters.parameters);
  compute.single_gpu_step_s = compute.kernels.total_s();
  return compute;
}

}  // namespace vtsim
