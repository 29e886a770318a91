#include "models/scenario.hpp"

#include <array>

#include "models/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, VirtualizationMode>, 4> kModes = {{
    {"bare_metal", VirtualizationMode::bare_metal},
    {"passthrough", VirtualizationMode::passthrough},
    {"vgpu", VirtualizationMode::vgpu},
    {"mig", VirtualizationMode::mig},
}};
const std::array<std::pair<std::string, SchedulerPolicy>, 3> kPolicies = {{
    {"best_effort", SchedulerPolicy::best_effort},
    {"equal_share", SchedulerPolicy::equal_share},
    {"fixed_share", SchedulerPolicy::fixed_share},
}};
const std::array<std::pair<std::string, AllreduceAlgorithm>, 2> kAlgorithms = {{
    {"ring", AllreduceAlgorithm::ring},
    {"hierarchical", AllreduceAlgorithm::hierarchical},
}};
const std::array<std::pair<std::string, Fidelity>, 3> kFidelities = {{
    {"step", Fidelity::step},
    {"flow", Fidelity::flow},
    {"analytic", Fidelity::analytic},
}};
const std::array<std::pair<std::string, DataParallel>, 2> kDataParallel = {{
    {"horovod", DataParallel::horovod},
    {"pytorch_ddp", DataParallel::pytorch_ddp},
}};

}  // namespace

std::span<const std::pair<std::string, VirtualizationMode>> virtualization_mode_names() { return kModes; }
std::span<const std::pair<std::string, SchedulerPolicy>> scheduler_policy_names() { return kPolicies; }
std::span<const std::pair<std::string, AllreduceAlgorithm>> allreduce_algorithm_names() { return kAlgorithms; }
std::span<const std::pair<std::string, Fidelity>> fidelity_names() { return kFidelities; }
std::span<const std::pair<std::string, DataParallel>> data_parallel_names() { return kDataParallel; }

std::string_view to_string(VirtualizationMode mode) { return name_of(kModes, mode); }
std::string_view to_string(SchedulerPolicy policy) { return name_of(kPolicies, policy); }
std::string_view to_string(AllreduceAlgorithm algorithm) { return name_of(kAlgorithms, algorithm); }
std::string_view to_string(Fidelity fidelity) { return name_of(kFidelities, fidelity); }
std::string_view to_string(DataParallel data_parallel) { return name_of(kDataParallel, data_parallel); }

std::map<int, int> ranks_per_host(const JobConfig& job, int gpus_per_host) {
  std::map<int, int> ranks;
  for (int gpu : job.gpu_ids) ++ranks[gpu / gpus_per_host];
  return ranks;
}

int samples_per_step(const JobConfig& job) {
  if (job.parallelism) return job.parallelism->data * job.batch_per_gpu;
  return static_cast<int>(job.gpu_ids.size()) * job.batch_per_gpu * job.gradient_accumulation;
}

}  // namespace vtsim
