#include "sim/rank_classes.hpp"

#include <cassert>
#include <map>
#include <tuple>

namespace vtsim::sim {

std::optional<std::string> reduction_blocker(const Scenario& scenario, const JobConfig& job, bool tracing) {
  if (!scenario.simulation.reduce_ranks) return "simulation.reduce_ranks is false";
  if (job.parallelism) return "tensor, pipeline or sharded parallelism";
  if (!scenario.events.empty()) return "vSphere events";
  if (tracing) return "a trace (one track per rank)";
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
