#include "models/scenario/scenario.hpp"

#include <algorithm>
#include <array>
#include <cassert>

#include "models/catalog/gpu_spec.hpp"
#include "models/core/enum_names.hpp"

namespace vtsim {

void apply_gpu_model_defaults(HostConfig& host, const GpuSpec& gpu) {
  host.nvlink_present = gpu.nvlink_links > 0;
  host.nvlink_enabled = host.nvlink_present;
  host.pcie_gen = gpu.pcie_gen;
}

int whole_host_cpu_cores(const Scenario& scenario) {
  if (scenario.virtualization.mode != VirtualizationMode::bare_metal) return scenario.virtualization.vm_cpu_cores;
  return scenario.cluster.host.cpu_cores.value_or(kGenericHostCpuCores);
}

JobCpuCores job_cpu_cores(const Scenario& scenario, const JobConfig& job, int host) {
  const int host_cores = whole_host_cpu_cores(scenario);
  if (scenario.virtualization.mode != VirtualizationMode::bare_metal) {
    return {host_cores, std::to_string(host_cores) + " vCPUs in the VM", false};
  }
  const HostConfig& config = scenario.cluster.host;
  const int gpus_per_host = config.gpus;
  const auto ranks_on_host = [&](const JobConfig& other) {
    return static_cast<int>(std::count_if(other.gpu_ids.begin(), other.gpu_ids.end(),
                                          [&](int gpu) { return gpu / gpus_per_host == host; }));
  };
  const int mine = ranks_on_host(job);
  assert(mine >= 1);
  int all = 0;
  for (const JobConfig& other : scenario.jobs) all += ranks_on_host(other);
  const int cores = std::max(1, host_cores * mine / all);
  std::string what = std::to_string(cores) + " of the host's " + std::to_string(host_cores) + " cores";
  if (cores == host_cores) what = std::to_string(host_cores) + " cores of the host";
  if (!config.model.empty()) {
    what += " (" + config.model + ")";
  } else if (!config.cpu_cores) {
    what += " (a generic host's default: give cluster.host.model or cluster.host.cpu_cores)";
  }
  return {cores, what, !config.cpu_cores.has_value()};
}

Param<double> context_switch(const SchedulerConfig& scheduler, const CalibratedParameters& calibration) {
  if (scheduler.context_switch_stated) {
    return {.value = scheduler.context_switch_s,
            .source = Source::scenario,
            .note = "virtualization.scheduler.context_switch_us"};
  }
  if (calibration.context_switch_s) {
    return {.value = calibration.context_switch_s->value,
            .source = Source::measured,
            .note = calibration.context_switch_s->provenance};
  }
  return {.value = scheduler.context_switch_s,
          .source = Source::uncalibrated,
          .note = "no published figure; measure it (models/scenario/scenario.hpp SchedulerConfig)"};
}

}  // namespace vtsim
