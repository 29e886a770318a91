#include "models/compute/job_compute.hpp"

#include "models/traces/traced_iteration.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {

Workload job_workload(const JobConfig& job) {
  if (job.trace) return traced_workload(*job.trace->iteration);
  Workload workload = job.transformer ? make_transformer(*job.transformer, "transformer", "GPT-style transformer")
                                      : *make_workload(job.workload_id);
  if (job.optimizer) workload.optimizer = *job.optimizer;
  use_framework(workload, job.framework);
  if (job.memory_format) {
    workload.layout = *job.memory_format;
    workload.layout_stated = true;
  }
  if (job.optimizer_implementation) {
    // The loader refused the implementations that are not counted (optimizer_kernels_for's reason).
    workload.optimizer_kernels =
        optimizer_kernels_for(*job.optimizer_implementation, job.framework, workload.optimizer).kernels;
  }
  return workload;
}

}  // namespace vtsim
