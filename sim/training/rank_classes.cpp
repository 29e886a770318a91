#include "sim/training/rank_classes.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>
#include <utility>

namespace vtsim::sim {

std::optional<std::string> reduction_blocker(const ReductionContext& context) {
  if (!context.reduce_ranks) return "simulation.reduce_ranks is false";
  if (context.model_parallel && context.fidelity != Fidelity::analytic) {
    return "tensor, pipeline or sharded parallelism at flow or step fidelity";
  }
  if (context.events) return "vSphere events";
  if (context.tracing) return "a trace (one track per rank)";
  return std::nullopt;
}

std::vector<std::vector<int>> rank_classes(const std::vector<double>& rank_speed, const std::vector<bool>& time_sliced,
                                           const std::vector<int>& memory_gpu) {
  assert(rank_speed.size() == time_sliced.size() && rank_speed.size() == memory_gpu.size());
  std::vector<std::vector<int>> classes;
  std::map<std::tuple<double, bool>, std::size_t> class_of;  // (speed, memory modelled) of the ranks not time-sliced
  for (std::size_t position = 0; position < rank_speed.size(); ++position) {
    const int rank = static_cast<int>(position);
    if (time_sliced[position]) {
      classes.push_back({rank});
      continue;
    }
    const auto [found, added] = class_of.try_emplace({rank_speed[position], memory_gpu[position] >= 0}, classes.size());
    if (added) classes.emplace_back();
    classes[found->second].push_back(rank);
  }
  return classes;
}

std::optional<std::vector<std::vector<int>>> tensor_group_classes(const std::vector<int>& tensor_group,
                                                                  const std::vector<int>& tensor_position,
                                                                  const std::vector<double>& rank_speed,
                                                                  const std::vector<bool>& time_sliced,
                                                                  const std::vector<int>& memory_gpu) {
  const std::size_t ranks = tensor_group.size();
  assert(tensor_position.size() == ranks && rank_speed.size() == ranks && time_sliced.size() == ranks &&
         memory_gpu.size() == ranks);
  std::vector<std::vector<int>> classes;
  for (std::size_t position = 0; position < ranks; ++position) {
    const auto group = static_cast<std::size_t>(tensor_group[position]);
    const auto slot = static_cast<std::size_t>(tensor_position[position]);
    if (classes.size() <= group) classes.resize(group + 1);
    if (classes[group].size() <= slot) classes[group].resize(slot + 1, -1);
    classes[group][slot] = static_cast<int>(position);
  }
  for (const std::vector<int>& members : classes) {
    assert(std::find(members.begin(), members.end(), -1) == members.end());
    const auto first = static_cast<std::size_t>(members.front());
    for (int member : members) {
      const auto at = static_cast<std::size_t>(member);
      const bool alike = !time_sliced[at] && rank_speed[at] == rank_speed[first] &&
                         (memory_gpu[at] >= 0) == (memory_gpu[first] >= 0);
      if (!alike) return std::nullopt;
    }
  }
  return classes;
}

LockstepNoise::LockstepNoise(std::uint64_t seed, const std::vector<std::uint64_t>& member_streams, double cv,
                             StallConfig stalls) {
  assert(!member_streams.empty());
  members_.reserve(member_streams.size());
  for (std::uint64_t stream : member_streams) members_.emplace_back(seed, stream, cv, stalls);
}

double LockstepNoise::next_stall_s() {
  std::vector<double> stalls;
  stalls.reserve(members_.size());
  for (ComputeNoise& member : members_) stalls.push_back(member.next_stall_s());
  const double longest = *std::max_element(stalls.begin(), stalls.end());
  for (double stall : stalls) saved_s_ += longest - stall;
  return longest;
}

double LockstepNoise::next_multiplier() {
  if (members_.size() == 1) return members_.front().next_multiplier();
  std::vector<double> multipliers;
  multipliers.reserve(members_.size());
  for (ComputeNoise& member : members_) multipliers.push_back(member.next_multiplier());
  const double largest = *std::max_element(multipliers.begin(), multipliers.end());
  multiplier_shortfall_ = 0;
  for (double multiplier : multipliers) multiplier_shortfall_ += largest - multiplier;
  return largest;
}

void LockstepNoise::ran(double base_s) { saved_s_ += multiplier_shortfall_ * base_s; }

double LockstepNoise::take_members_saved_s() { return std::exchange(saved_s_, 0.0); }

ClassNoise::ClassNoise(std::uint64_t seed, const std::vector<std::uint64_t>& member_streams, double cv,
                       StallConfig stalls) {
  assert(!member_streams.empty());
  members_.reserve(member_streams.size());
  for (std::uint64_t stream : member_streams) members_.emplace_back(seed, stream, cv, stalls);
}

IterationDraws ClassNoise::next(int micro_batches, double pass_s, double optimizer_s, double speed,
                                const std::vector<double>& start_offsets_s) {
  assert(start_offsets_s.empty() || start_offsets_s.size() == members_.size());
  IterationDraws chosen;
  std::vector<double> multipliers(static_cast<std::size_t>(micro_batches));
  double latest_end_s = 0;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const double stall_s = members_[m].next_stall_s();
    double kernel_s = 0;
    for (double& multiplier : multipliers) {
      multiplier = members_[m].next_multiplier();
      kernel_s += multiplier * pass_s;
    }
    kernel_s = stall_s + speed * (kernel_s + multipliers.back() * optimizer_s);
    chosen.members_kernel_s += kernel_s;
    chosen.last_multipliers.push_back(multipliers.back());
    const double offset_s = start_offsets_s.empty() ? 0.0 : start_offsets_s[m];
    if (m == 0 || offset_s + kernel_s > latest_end_s) {
      latest_end_s = offset_s + kernel_s;
      chosen.stall_s = stall_s;
      chosen.multipliers = multipliers;
      chosen.member = static_cast<int>(m);
      chosen.kernel_s = kernel_s;
      chosen.start_offset_s = offset_s;
    }
  }
  return chosen;
}

}  // namespace vtsim::sim
