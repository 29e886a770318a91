// What a simulation reports (sim/engine/results.hpp) on a hand-made result: its step statistics by nearest rank and the
// JSON's units, nulls and omissions.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/results.hpp"

namespace vtsim::sim {
namespace {

TEST(StepStatistics, NearestRankPercentilesOfUnsortedSamples) {
  // Five samples: the mean 3; the median the ceil(0.5 x 5) = 3rd smallest, 3; p99 the ceil(0.99 x 5) = 5th, 5.
  const StepStatistics five = step_statistics({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(five.mean_s, 3.0);
  EXPECT_DOUBLE_EQ(five.p50_s, 3.0);
  EXPECT_DOUBLE_EQ(five.p99_s, 5.0);
  // 1 to 100 shuffled: the 50th and the 99th smallest, mean 50.5.
  std::vector<double> hundred(100);
  std::iota(hundred.begin(), hundred.end(), 1.0);
  std::shuffle(hundred.begin(), hundred.end(), std::mt19937(7));
  const StepStatistics spread = step_statistics(hundred);
  EXPECT_DOUBLE_EQ(spread.mean_s, 50.5);
  EXPECT_DOUBLE_EQ(spread.p50_s, 50.0);
  EXPECT_DOUBLE_EQ(spread.p99_s, 99.0);
  // One sample is every statistic.
  const StepStatistics one = step_statistics({0.25});
  EXPECT_DOUBLE_EQ(one.mean_s, 0.25);
  EXPECT_DOUBLE_EQ(one.p50_s, 0.25);
  EXPECT_DOUBLE_EQ(one.p99_s, 0.25);
}

TEST(ResultJson, UnitsAreTheKeysAndWhatIsNotForcedOrNotRunIsNullOrLeftOut) {
  SimulationResult result;
  result.scenario = "hand-made";
  result.fidelity = "flow";
  result.simulated_time_s = 12.5;
  result.communications = 42;
  result.wall_clock = {.plan_s = 1234.5, .platform_s = 1234.5, .actors_s = 1234.5, .run_s = 1234.5,
                       .results_s = 1234.5};  // differs from run to run: never in the JSON
  JobResult job;
  job.name = "bert";
  job.ranks = 8;
  job.simulated_ranks = 8;
  job.communication_actors = 2;
  job.memory.weights_bytes = 2.0 * 1024 * 1024 * 1024;
  job.memory.activations_bytes = 0.5 * 1024 * 1024 * 1024;
  job.device_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  job.compute_parameters.kernel_fixed_s = 4e-6;
  job.compute_parameters.data_loading_s = 2e-3;
  job.device_time_by_class[static_cast<std::size_t>(KernelClass::gemm)] = {.gpu_s = 0.25, .kernels = 300};
  job.nccl_forced_protocol = "LL128";
  result.jobs.push_back(job);
  const nlohmann::json json = to_json(result);
  const nlohmann::json& out = json.at("jobs").at(0);
  EXPECT_EQ(json.at("scenario"), "hand-made");
  EXPECT_DOUBLE_EQ(json.at("simulated_time_s").get<double>(), 12.5);
  EXPECT_EQ(json.at("communications"), 42);
  EXPECT_EQ(json.dump().find("1234.5"), std::string::npos) << "wall-clock time leaked into the JSON";
  // Bytes as GiB, seconds as us and ms where the key says so.
  EXPECT_DOUBLE_EQ(out.at("memory_per_gpu").at("weights_gib").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(out.at("memory_per_gpu").at("total_gib").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(out.at("memory_per_gpu").at("device_capacity_gib").get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(out.at("compute_model").at("kernel_fixed_us").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(out.at("compute_model").at("data_loading_ms").get<double>(), 2.0);
  // Classes without kernels are left out; a class's time in ms.
  EXPECT_EQ(out.at("compute_model").at("device_ms_by_class"),
            (nlohmann::json{{"gemm", {{"ms", 250.0}, {"kernels", 300}}}}));
  // What jobs[i].nccl does not force is null; a plain data-parallel job has no parallel block; a job that ran every
  // rank says no reason, and how many actors ran the ranks' communication.
  EXPECT_TRUE(out.at("allreduce").at("nccl_forced").at("algorithm").is_null());
  EXPECT_EQ(out.at("allreduce").at("nccl_forced").at("protocol"), "LL128");
  EXPECT_TRUE(out.at("allreduce").at("nccl_forced").at("channels").is_null());
  EXPECT_TRUE(out.at("parallelism").is_null());
  EXPECT_EQ(out.at("simulated_ranks"), (nlohmann::json{{"ranks", 8}, {"communication_actors", 2}}));
}

}  // namespace
}  // namespace vtsim::sim
