#include "sim/gpu_sharing.hpp"

#include <algorithm>

#include "models/vgpu_catalog.hpp"

namespace vtsim::sim {

GpuSharing::GpuSharing(const Scenario& scenario, TraceRecorder* trace, int trace_pid) {
  if (scenario.virtualization.mode != VirtualizationMode::vgpu) return;
  std::map<int, std::vector<std::size_t>> jobs_on_gpu;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    for (int gpu : scenario.jobs[j].gpu_ids) jobs_on_gpu[gpu].push_back(j);
  }
  const SchedulerConfig& config = scenario.virtualization.scheduler;
  for (const auto& [gpu, jobs] : jobs_on_gpu) {
    const VgpuProfile& profile = *find_vgpu_profile(scenario.jobs[jobs.front()].vgpu_profile);
    const bool fixed = config.policy == SchedulerPolicy::fixed_share;
    const int vgpus = static_cast<int>(jobs.size());
    if (vgpus == 1 && !(fixed && profile.max_per_gpu > 1)) continue;  // one vGPU with the whole GPU: nothing to slice
    SchedulerSetup setup;
    setup.policy = config.policy;
    setup.time_slice_s = config.time_slice_s;
    setup.context_switch_s = config.context_switch_s;
    setup.slots = fixed ? std::max(profile.max_per_gpu, vgpus) : vgpus;
    Shared shared;
    for (std::size_t j : jobs) {
      const JobConfig& job = scenario.jobs[j];
      setup.vgpu_names.push_back(job.name + (job.idle ? " (idle)" : ""));
    }
    shared.jobs = jobs;
    shared.names = setup.vgpu_names;
    shared.scheduler = std::make_unique<TimeSliceScheduler>(std::move(setup), trace, trace_pid, gpu);
    if (trace != nullptr) trace->name_thread(trace_pid, gpu, "GPU " + std::to_string(gpu));
    gpus_.emplace(gpu, std::move(shared));
  }
  if (trace != nullptr && !gpus_.empty()) trace->name_process(trace_pid, "time-sliced GPUs");
}

void GpuSharing::start(const Platform& platform) {
  for (auto& [gpu, shared] : gpus_) shared.scheduler->start(platform.gpu_host(gpu));
}

std::pair<TimeSliceScheduler*, int> GpuSharing::slot(int gpu, std::size_t job) const {
  const auto found = gpus_.find(gpu);
  if (found == gpus_.end()) return {nullptr, -1};
  const std::vector<std::size_t>& jobs = found->second.jobs;
  const auto position = std::find(jobs.begin(), jobs.end(), job);
  return {found->second.scheduler.get(), static_cast<int>(position - jobs.begin())};
}

std::vector<GpuSharing::GpuReport> GpuSharing::reports(double end_s) const {
  std::vector<GpuReport> reports;
  for (const auto& [gpu, shared] : gpus_) {
    reports.push_back({gpu, shared.names, shared.scheduler->statistics_until(end_s)});
  }
  return reports;
}

}  // namespace vtsim::sim
