// Tensor, pipeline and sharded parallelism in whole simulations (sim/model_parallel_rank.cpp), against the schedules'
// critical paths evaluated by hand from the compute model's stage kernel times, and against closed forms.

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

#include "models/error.hpp"
#include "models/job_compute.hpp"
#include "models/parallel_strategy.hpp"
#include "sim/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;

nlohmann::json simulate_in_child(const Scenario& scenario) {
  return vtsim::tools::run_isolated([&] { return to_json(simulate(scenario)); });
}

/// A small GPT (8 blocks of width 256, 128 tokens) on one host of 4x A100 on NVLink, split as `parallelism` says.
/// Its activations between stages are 64 KiB per micro-batch: a few microseconds on NVLink against milliseconds of
/// compute, so the pipeline runs as if communication were free.
nlohmann::json small_gpt_job(const nlohmann::json& parallelism, int batch) {
  return {{"cluster", {{"racks", 1}, {"hosts_per_rack", 1}, {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}}}}},
          {"jobs",
           {{{"workload",
              {{"transformer",
                {{"layers", 8}, {"hidden_size", 256}, {"heads", 4}, {"sequence_length", 128}, {"vocab_size", 64}}}}},
             {"batch_per_gpu", batch},
             {"data_loading_cpu_ms_per_sample", 0},
             {"parallelism", parallelism},
             {"iterations", 2},
             {"warmup_iterations", 1}}}}};
}

/// The step of a pipeline whose stages run `passes` in order, a forward of micro-batch i on stage s after stage
/// s - 1's, a backward after stage s + 1's, communication free: the longest path through the schedule, then each
/// stage's optimizer. A list evaluation of the dependency graph, independent of the engine's actors.
double pipeline_critical_path_s(const ParallelStrategy& strategy, const std::vector<double>& forward_s,
                                const std::vector<double>& backward_s, const std::vector<double>& optimizer_s) {
  const int p = strategy.pipeline;
  const int m = strategy.micro_batches;
  std::vector<std::vector<PipelinePass>> passes;
  for (int s = 0; s < p; ++s) passes.push_back(pipeline_schedule(strategy, s));
  std::vector<std::vector<double>> forward_end(static_cast<std::size_t>(p), std::vector<double>(m, -1));
  std::vector<std::vector<double>> backward_end = forward_end;
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {
      const auto us = static_cast<std::size_t>(s);
      while (next[us] < passes[us].size()) {
        const PipelinePass& pass = passes[us][next[us]];
        const auto i = static_cast<std::size_t>(pass.micro);
        double ready = 0;
        if (pass.forward && s > 0) ready = forward_end[us - 1][i];
        if (!pass.forward && s + 1 < p) ready = backward_end[us + 1][i];
        if (ready < 0) break;
        const double start = std::max(ready, free_at[us]);
        free_at[us] = start + (pass.forward ? forward_s[us] : backward_s[us]);
        (pass.forward ? forward_end : backward_end)[us][i] = free_at[us];
        ++next[us];
        progress = true;
      }
    }
  }
  double step = 0;
  for (std::size_t s = 0; s < free_at.size(); ++s) step = std::max(step, free_at[s] + optimizer_s[s]);
  return step;
}

TEST(PipelineParallelism, OneForwardOneBackwardStepIsTheSchedulesCriticalPath) {
  for (const std::string schedule : {"1f1b", "gpipe"}) {
    const Scenario scenario = scenario_of(small_gpt_job({{"pipeline", 4}, {"schedule", schedule}}, 8));
    const JobCompute compute = plan_job_compute(scenario, 0);
    std::vector<double> forward, backward, optimizer;
    for (const StageCompute& stage : compute.stages) {
      const KernelTimes& k = stage.kernels;
      forward.push_back(std::accumulate(k.forward_s.begin(), k.forward_s.end(), 0.0));
      backward.push_back(std::accumulate(k.backward_s.begin(), k.backward_s.end(), 0.0));
      optimizer.push_back(k.optimizer_s);
    }
    const double expected = pipeline_critical_path_s(*scenario.jobs[0].parallelism, forward, backward, optimizer);
    const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
    EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), expected, 2e-3 * expected) << schedule;
    EXPECT_NEAR(job["parallelism"]["bubble_fraction_closed_form"].get<double>(), 3.0 / 11.0, 1e-12);
  }
}

TEST(PipelineParallelism, EqualStagesIdleTheClosedFormsBubble) {
  // The critical path above with equal stages: (m + p - 1)(F + B), so the idle share is (p - 1) / (m + p - 1).
  ParallelStrategy strategy;
  strategy.pipeline = 4;
  strategy.micro_batches = 8;
  const double step = pipeline_critical_path_s(strategy, {1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(step, 11 * 3.0);
  EXPECT_DOUBLE_EQ(1 - 8 * 3.0 / step, pipeline_bubble_fraction(strategy));
}

TEST(TensorParallelism, EachTensorCollectiveIsOnTheCriticalPath) {
  // One micro-batch over a tensor group of 4: the step is the split kernels plus the tensor-group collectives, which
  // the result reports; nothing else waits.
  const Scenario scenario = scenario_of(small_gpt_job({{"tensor", 4}}, 1));
  const JobCompute compute = plan_job_compute(scenario, 0);
  const KernelTimes& k = compute.stages.front().kernels;
  const double kernels = k.total_s();
  const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
  const double tensor_s = job["parallelism"]["communication_s"]["tensor_parallel"].get<double>();
  EXPECT_GT(tensor_s, 0);
  EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), kernels + tensor_s, 1e-9 + 1e-6 * kernels);
}

TEST(ShardedDataParallelism, ZeroStageThreeSendsHalfAgainThePlainAllreducesBytes) {
  // Four data-parallel replicas, one micro-batch: without ZeRO each rank sends a ring allreduce's 2 (d - 1) / d of the
  // 16-bit gradients, 2 bytes per parameter P; ZeRO-1 a reduce-scatter of them and an allgather of the weights,
  // (d - 1) / d each: the same; ZeRO-3 the reduce-scatter and an allgather of the weights before the forward and
  // again before the backward: 1.5 times as much (Rajbhandari et al., SC'20, Sec. 7).
  const auto sent = [](int zero_stage, int micro_batches = 1) {
    const Scenario scenario = scenario_of(small_gpt_job({{"zero_stage", zero_stage}}, micro_batches));
    const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
    EXPECT_EQ(job["parallelism"]["data"].get<int>(), 4);
    return job["parallelism"]["data_parallel_sent_bytes_per_step"].get<double>();
  };
  const double parameters = plan_job_compute(scenario_of(small_gpt_job({}, 1)), 0).workload.parameters();
  const double plain = sent(0);
  EXPECT_NEAR(plain, 2.0 * 3 / 4 * 2 * parameters, 1e-9 * plain);
  EXPECT_NEAR(sent(1) / plain, 1.0, 1e-12);
  EXPECT_NEAR(sent(3) / plain, 1.5, 1e-12);
  // Four micro-batches: plain DDP still reduces once; ZeRO-2 reduce-scatters each micro-batch's gradients (4 halves)
  // and gathers once (a half): 2.5 times; ZeRO-3 adds 8 gathers to the 4 reduce-scatters: 6 times.
  EXPECT_NEAR(sent(0, 4) / plain, 1.0, 1e-12);
  EXPECT_NEAR(sent(2, 4) / plain, 2.5, 1e-12);
  EXPECT_NEAR(sent(3, 4) / plain, 6.0, 1e-12);
  EXPECT_DOUBLE_EQ(data_parallel_bytes(parameters, 2, 4, 3) / data_parallel_bytes(parameters, 2, 4, 0), 1.5);
}

TEST(Parallelism, ErrorsNameTheKeyAndWhy) {
  try {
    scenario_of(small_gpt_job({{"tensor", 3}}, 1));
    ADD_FAILURE() << "tensor 3 over 4 GPUs must be refused";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "test.json: jobs[0].parallelism: tensor x pipeline (3 x 1) must divide the job's 4 GPUs");
  }
  try {
    // Interleaving needs the micro-batches (2) to be a multiple of the stages (4).
    plan_job_compute(scenario_of(small_gpt_job({{"pipeline", 4}, {"schedule", "interleaved"}}, 2)), 0);
    ADD_FAILURE() << "2 micro-batches over 4 interleaved stages must be refused";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs[0].parallelism: schedule"), std::string::npos) << error.what();
  }
  nlohmann::json gradient_accumulation = small_gpt_job({{"tensor", 2}}, 2);
  gradient_accumulation["jobs"][0]["gradient_accumulation"] = 2;
  try {
    scenario_of(gradient_accumulation);
    ADD_FAILURE() << "gradient_accumulation with parallelism must be refused";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs[0].gradient_accumulation"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace vtsim::sim
