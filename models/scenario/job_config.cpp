#include "models/scenario/job_config.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, AllreduceAlgorithm>, 2> kAllreduceAlgorithms = {{
    {"ring", AllreduceAlgorithm::ring},
    {"hierarchical", AllreduceAlgorithm::hierarchical},
}};

}  // namespace

std::span<const std::pair<std::string, AllreduceAlgorithm>> allreduce_algorithm_names() { return kAllreduceAlgorithms; }

std::string_view to_string(AllreduceAlgorithm algorithm) { return name_of(kAllreduceAlgorithms, algorithm); }

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
