#include "sim/sharing/gpu_sharing.hpp"

#include <algorithm>
#include <cassert>

namespace vtsim::sim {

GpuSharing::GpuSharing(std::vector<SlicedGpu> gpus, TraceRecorder* trace, int trace_pid) {
  for (SlicedGpu& sliced : gpus) {
    Shared shared;
    shared.jobs = std::move(sliced.jobs);
    shared.names = sliced.setup.vgpu_names;
    shared.scheduler = std::make_unique<TimeSliceScheduler>(std::move(sliced.setup), trace, trace_pid, sliced.gpu);
    if (trace != nullptr) trace->name_thread(trace_pid, sliced.gpu, "GPU " + std::to_string(sliced.gpu));
    [[maybe_unused]] const bool added = gpus_.emplace(sliced.gpu, std::move(shared)).second;
    assert(added && "each GPU once");
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
