#include "models/scenario/scenario_checks.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/catalog/mig_placement.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/catalog/vgpu_catalog.hpp"
#include "models/core/error.hpp"
#include "models/core/units.hpp"

namespace vtsim {
namespace {

[[noreturn]] void fail_at(const Scenario& scenario, const JobConfig& job, const std::string& message) {
  throw InputError(scenario.file + ": " + job.json_path + ".gpus: " + message);
}

void check_vgpus(const Scenario& scenario, const GpuSpec& gpu, int gpu_id, const std::vector<const JobConfig*>& jobs) {
  const std::string where = "GPU " + std::to_string(gpu_id);
  const JobConfig& last = *jobs.back();
  std::map<std::string, int> count;
  double framebuffer_bytes = 0;
  for (const JobConfig* job : jobs) {
    ++count[job->vgpu_profile];
    framebuffer_bytes += find_vgpu_profile(job->vgpu_profile)->memory_bytes;
  }
  for (const auto& [profile_id, n] : count) {
    const VgpuProfile& profile = *find_vgpu_profile(profile_id);
    if (n > profile.max_per_gpu) {
      fail_at(scenario, last, where + " holds " + std::to_string(n) + " " + profile_id + " vGPUs; the profile allows " +
                                  std::to_string(profile.max_per_gpu) + " per GPU");
    }
  }
  if (count.size() > 1 && !scenario.virtualization.mixed_sizes) {
    fail_at(scenario, last, where + " holds vGPUs of different sizes (" + count.begin()->first + ", " +
                                std::next(count.begin())->first +
                                "); time-sliced vGPUs on one GPU must have one size unless "
                                "virtualization.mixed_sizes is true (vGPU 17 mixed-size mode)");
  }
  if (framebuffer_bytes > gpu.memory_bytes) {
    fail_at(scenario, last, where + ": its vGPUs' framebuffers add up to more than the GPU's " +
                                std::to_string(static_cast<int>(gpu.memory_bytes / units::kBytesPerGiB)) + " GiB");
  }
}

void check_mig(const Scenario& scenario, const GpuSpec& gpu, int gpu_id, const std::vector<const JobConfig*>& jobs) {
  std::vector<const MigProfile*> instances;
  for (const JobConfig* job : jobs) instances.push_back(find_mig_profile(gpu.id, job->mig_profile));
  const MigPlacement placement = place_mig_instances(instances);
  if (!placement.problem.empty()) fail_at(scenario, *jobs.back(), "GPU " + std::to_string(gpu_id) + ": " + placement.problem);
}

}  // namespace

void check_gpu_sharing(const Scenario& scenario) {
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  std::map<int, std::vector<const JobConfig*>> jobs_on_gpu;
  for (const JobConfig& job : scenario.jobs) {
    for (int id : job.gpu_ids) jobs_on_gpu[id].push_back(&job);
  }
  const VirtualizationMode mode = scenario.virtualization.mode;
  for (const auto& [gpu_id, jobs] : jobs_on_gpu) {
    if (jobs.size() > 1 && (mode == VirtualizationMode::bare_metal || mode == VirtualizationMode::passthrough)) {
      fail_at(scenario, *jobs.back(), "GPU " + std::to_string(gpu_id) + " is already used by job '" +
                                          jobs.front()->name + "'; sharing a GPU needs virtualization.mode 'vgpu' or 'mig'");
    }
    if (mode == VirtualizationMode::vgpu) check_vgpus(scenario, gpu, gpu_id, jobs);
    if (mode == VirtualizationMode::mig) check_mig(scenario, gpu, gpu_id, jobs);
  }
}

void check_transport_reach(const Scenario& scenario) {
  const ClusterConfig& cluster = scenario.cluster;
  const int gpus_per_rack = cluster.hosts_per_rack * cluster.host.gpus;
  for (const JobConfig& job : scenario.jobs) {
    const auto [low, high] = std::minmax_element(job.gpu_ids.begin(), job.gpu_ids.end());
    const bool spans_hosts = *low / cluster.host.gpus != *high / cluster.host.gpus;
    if (spans_hosts && cluster.host.nics == 0) fail_at(scenario, job, "the job spans hosts but cluster.host.nics is 0");
    if (!transport_spec(cluster.transport).routable && *low / gpus_per_rack != *high / gpus_per_rack) {
      fail_at(scenario, job, "the job spans racks " + std::to_string(*low / gpus_per_rack) + " and " +
                                 std::to_string(*high / gpus_per_rack) + ", but " +
                                 std::string(to_string(cluster.transport)) +
                                 " is not routable: its traffic cannot leave one rack's broadcast domain (use roce_v2)");
    }
  }
}

void check_context_switch(const Scenario& scenario, const CalibratedParameters& calibration) {
  if (scenario.virtualization.mode != VirtualizationMode::vgpu) return;
  const SchedulerConfig& scheduler = scenario.virtualization.scheduler;
  constexpr double kMaxSwitchShareOfSlice = 0.9;
  const Param<double> switch_s = context_switch(scheduler, calibration);
  if (switch_s.value <= kMaxSwitchShareOfSlice * scheduler.time_slice_s) return;
  std::ostringstream why;
  why.precision(10);
  why << "a context switch (" << switch_s.value / units::kSecondsPerUs << " us"
      << (switch_s.source == Source::measured ? ", measured in " + scenario.calibration_profile : "")
      << ") may take at most 90% of the time slice (" << scheduler.time_slice_s / units::kSecondsPerMs
      << " ms): each slot would leave a vGPU almost nothing to run";
  throw InputError(scenario.file + ": virtualization.scheduler.context_switch_us: " + why.str());
}

}  // namespace vtsim
