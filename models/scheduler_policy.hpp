#pragma once
// The time-sliced vGPU scheduler's policies, apart from the scenario so that the engine's scheduler needs no more.

#include <span>
#include <string>
#include <string_view>
#include <utility>

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

}  // namespace vtsim
