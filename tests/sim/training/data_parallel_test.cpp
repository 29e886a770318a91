// How data-parallel frameworks reduce gradients: gradient accumulation and PyTorch DDP's buckets in whole
// simulations, against figures derived from the compute model's kernel times and DDP's bucket rule.

#include <gtest/gtest.h>

#include "models/compute/job_compute.hpp"
#include "models/core/error.hpp"
#include "models/parallel/ddp_buckets.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::simulate_in_child;

Scenario bert_on_four_a100(const std::vector<std::string>& more = {}) {
  std::vector<std::string> overrides = {"simulation.variability=false", "jobs[0].data_loading_cpu_ms_per_sample=0",
                                        "jobs[0].iterations=4"};
  overrides.insert(overrides.end(), more.begin(), more.end());
  return load_scenario_file(std::string(VTSIM_SOURCE_DIR) + "/scenarios/a100-nvlink-bert.json", overrides);
}

TEST(GradientAccumulation, ReducesOncePerStepSoCommunicationPerSampleDividesByTheMicroBatches) {
  // No Horovod cycle: with one, where backward ends against the tick grid would differ between the two runs.
  const Scenario once = bert_on_four_a100({"jobs[0].horovod.cycle_time_ms=0"});
  const Scenario four = bert_on_four_a100({"jobs[0].horovod.cycle_time_ms=0", "jobs[0].gradient_accumulation=4"});
  const nlohmann::json one_result = simulate_in_child(once)["jobs"][0];
  const nlohmann::json four_result = simulate_in_child(four)["jobs"][0];
  // The same gradients are reduced once per step: bytes per step are equal, samples per step four times as many.
  EXPECT_DOUBLE_EQ(four_result["allreduce"]["bytes_per_step"].get<double>(),
                   one_result["allreduce"]["bytes_per_step"].get<double>());
  const auto samples_per_step = [](const nlohmann::json& job) {
    return job["samples_per_s"].get<double>() * job["step_time_s"]["mean"].get<double>();
  };
  EXPECT_NEAR(samples_per_step(one_result), 4 * 32, 1e-6);
  EXPECT_NEAR(samples_per_step(four_result), 4 * 4 * 32, 1e-6);
  // The three extra micro-batches add their forward and backward kernels and nothing else: the last micro-batch,
  // its allreduces and the optimizer step run as without accumulation.
  const KernelTimes& kernels = plan_job_compute(once, 0, {}).kernels;
  const double forward_backward_s = kernels.total_s() - kernels.optimizer_s;
  EXPECT_NEAR(four_result["step_time_s"]["mean"].get<double>() - one_result["step_time_s"]["mean"].get<double>(),
              3 * forward_backward_s, 1e-9);
}

TEST(PytorchDdp, ReducesOneAllreducePerBucket) {
  const Scenario scenario = bert_on_four_a100({"jobs[0].data_parallel=pytorch_ddp"});
  ASSERT_EQ(scenario.jobs[0].data_parallel, DataParallel::pytorch_ddp);
  const JobCompute compute = plan_job_compute(scenario, 0, {});
  std::vector<double> registered;
  for (const Layer& layer : compute.workload.layers) {
    if (layer.gradient_bytes() > 0) registered.push_back(layer.gradient_bytes());
  }
  const std::size_t buckets = ddp_buckets(registered, 1024.0 * 1024, 25.0 * 1024 * 1024).size();
  ASSERT_GT(buckets, 10u);  // BERT-large: ~1.3 GB of FP32 gradients in 25 MiB buckets
  const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
  EXPECT_DOUBLE_EQ(job["allreduce"]["calls_per_step"].get<double>(), static_cast<double>(buckets));
}

TEST(PytorchDdp, IsTheDefaultForPytorchAndHorovodSettingsConflictWithIt) {
  nlohmann::json json = {{"cluster", {{"host", {{"gpus", 2}}}}},
                         {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}};
  EXPECT_EQ(testing::scenario_of(json).jobs[0].data_parallel, DataParallel::pytorch_ddp);
  json["jobs"][0]["framework"] = "tensorflow";
  EXPECT_EQ(testing::scenario_of(json).jobs[0].data_parallel, DataParallel::horovod);
  json["jobs"][0]["framework"] = "pytorch";
  json["jobs"][0]["horovod"] = {{"cycle_time_ms", 1}};
  EXPECT_EQ(testing::scenario_of(json).jobs[0].data_parallel, DataParallel::horovod);
  json["jobs"][0]["data_parallel"] = "pytorch_ddp";
  EXPECT_THROW(testing::scenario_of(json), InputError);
}

}  // namespace
}  // namespace vtsim::sim
