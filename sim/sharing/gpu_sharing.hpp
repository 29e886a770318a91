#pragma once
// Which physical GPUs are time-sliced between vGPUs, and their schedulers.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/scenario/scheduler_policy.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/trace.hpp"
#include "sim/sharing/vgpu_scheduler.hpp"

namespace vtsim::sim {

/// The schedulers of a scenario's time-sliced GPUs and where each job's rank sits on them.
class GpuSharing {
 public:
  /// Creates a scheduler for each of `gpus` (the GPUs that need one, models/resolve/resolve.cpp decides which). `trace`
  /// may be null; each scheduler draws on track (trace_pid, gpu index). REQUIRES: distinct GPUs, in ascending order.
  GpuSharing(std::vector<SlicedGpu> gpus, TraceRecorder* trace, int trace_pid);

  /// Starts the schedulers' actors. REQUIRES: a running engine whose platform is `platform`.
  void start(const Platform& platform);
  /// How many actors start() creates: one scheduler per time-sliced GPU.
  std::size_t actor_count() const { return gpus_.size(); }
  /// The scheduler of `gpu` and the vGPU index job `job` has there, or {nullptr, -1} when the GPU is not time-sliced.
  std::pair<TimeSliceScheduler*, int> slot(int gpu, std::size_t job) const;
  /// Per time-sliced GPU: its index, the names of its vGPUs, and what its scheduler did before `end_s`.
  struct GpuReport {
    int gpu;
    std::vector<std::string> vgpus;
    SchedulerStatistics statistics;
  };
  std::vector<GpuReport> reports(double end_s) const;

 private:
  struct Shared {
    std::unique_ptr<TimeSliceScheduler> scheduler;
    std::vector<std::size_t> jobs;  ///< job index of each vGPU, in vGPU order
    std::vector<std::string> names;
  };
  std::map<int, Shared> gpus_;
};

}  // namespace vtsim::sim
