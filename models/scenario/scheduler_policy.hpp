#pragma once
// The time-sliced vGPU scheduler's policies and setup, apart from the scenario so that the engine's scheduler needs no
// more (sim/sharing/vgpu_scheduler.hpp runs it; models/resolve decides which GPUs need one).

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtsim {

/// The time-sliced vGPU scheduler's policy (NVIDIA vGPU user guide, scheduler chapter).
enum class SchedulerPolicy {
  best_effort,  ///< round-robin over vGPUs with work; idle vGPUs give their time away
  equal_share,  ///< each powered-on vGPU gets 1/n of the GPU, whether or not it has work
  fixed_share,  ///< each vGPU gets 1/(profile's maximum per GPU), whether or not the others run
};

/// Every policy with its name in scenario files.
std::span<const std::pair<std::string, SchedulerPolicy>> scheduler_policy_names();
/// "best_effort", "equal_share" or "fixed_share".
std::string_view to_string(SchedulerPolicy policy);

/// How one GPU's scheduler is set up.
struct SchedulerSetup {
  SchedulerPolicy policy = SchedulerPolicy::best_effort;
  double time_slice_s = 2e-3;
  double context_switch_s = 0;
  int slots = 1;                        ///< fixed share: the profile's maximum per GPU; otherwise the vGPU count
  std::vector<std::string> vgpu_names;  ///< one per powered-on vGPU, in slot order (the trace shows them)
};

/// One time-sliced GPU: its scheduler's setup and, per vGPU in slot order, the index of the job it belongs to.
struct SlicedGpu {
  int gpu = 0;
  SchedulerSetup setup;
  std::vector<std::size_t> jobs;
};

}  // namespace vtsim
