#include "models/catalog/mig_placement.hpp"

#include <algorithm>
#include <numeric>

namespace vtsim {
namespace {

bool place(const std::vector<const MigProfile*>& instances, const std::vector<std::size_t>& order, std::size_t next,
           std::vector<bool>& used, std::vector<int>& starts) {
  if (next == order.size()) return true;
  const MigProfile& profile = *instances[order[next]];
  for (int start : mig_placement_starts(profile)) {
    const int end = start + profile.memory_slices;
    if (end > profile.gpu_memory_slices) continue;
    if (std::any_of(used.begin() + start, used.begin() + end, [](bool taken) { return taken; })) continue;
    std::fill(used.begin() + start, used.begin() + end, true);
    starts[order[next]] = start;
    if (place(instances, order, next + 1, used, starts)) return true;
    std::fill(used.begin() + start, used.begin() + end, false);
  }
  return false;
}

std::string names_of(const std::vector<const MigProfile*>& instances) {
  std::string names;
  for (const MigProfile* profile : instances) names += (names.empty() ? "" : " + ") + profile->id;
  return names;
}

}  // namespace

std::vector<int> mig_placement_starts(const MigProfile& profile) {
  if (profile.gpu_memory_slices == 4) {  // A30: 4g at 0, 2g at 0 or 2, 1g at 0 to 3
    if (profile.compute_slices == 4) return {0};
    if (profile.compute_slices == 2) return {0, 2};
    return {0, 1, 2, 3};
  }
  switch (profile.compute_slices) {
    case 7:
    case 4: return {0};
    case 3: return {0, 4};
    case 2: return {0, 2, 4};
    default: break;
  }
  if (profile.memory_slices >= 2) return {0, 2, 4, 6};
  return {0, 1, 2, 3, 4, 5, 6};
}

MigPlacement place_mig_instances(const std::vector<const MigProfile*>& instances) {
  MigPlacement placement;
  if (instances.empty()) return placement;
  // One GPU's instances: they share its slice counts.
  const int gpu_compute = instances.front()->gpu_compute_slices;
  const int gpu_memory = instances.front()->gpu_memory_slices;
  int compute = 0;
  int memory = 0;
  for (const MigProfile* profile : instances) {
    compute += profile->compute_slices;
    memory += profile->memory_slices;
  }
  if (compute > gpu_compute || memory > gpu_memory) {
    placement.problem = names_of(instances) + " need " + std::to_string(compute) + "/" + std::to_string(gpu_compute) +
                        " compute and " + std::to_string(memory) + "/" + std::to_string(gpu_memory) +
                        " memory slices";
    return placement;
  }
  for (const MigProfile* profile : instances) {
    if (profile->max_instances > 0 &&
        std::count(instances.begin(), instances.end(), profile) > profile->max_instances) {
      placement.problem = names_of(instances) + ": " + profile->id + " allows " +
                          std::to_string(profile->max_instances) + " instances per GPU";
      return placement;
    }
  }
  // Largest first: they have the fewest places to go.
  std::vector<std::size_t> order(instances.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return instances[a]->memory_slices > instances[b]->memory_slices;
  });
  std::vector<bool> used(static_cast<std::size_t>(gpu_memory), false);
  placement.starts.assign(instances.size(), -1);
  if (!place(instances, order, 0, used, placement.starts)) {
    placement.starts.clear();
    placement.problem = "no placement NVIDIA allows fits " + names_of(instances) +
                        (gpu_memory == 4 ? " (on an A30 4g may start only at memory slice 0, 2g at 0 or 2, and 1g at "
                                           "0 to 3)"
                                         : " (3g may start only at memory slice 0 or 4, 4g and 7g only at 0, 2g at "
                                           "0, 2 or 4, and 1g at 0 to 6)");
  }
  return placement;
}

}  // namespace vtsim
