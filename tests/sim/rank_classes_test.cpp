// Rank classes (sim/rank_classes.hpp): which ranks are alike, the draws a class runs with, and the reduced simulation
// held to the full one on jobs small enough to run both.

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "sim/rank_classes.hpp"
#include "sim/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;

TEST(RankClasses, GroupsRanksBySpeedAndMemoryAndLeavesTimeSlicedRanksAlone) {
  // Ranks 0, 1 and 4 alike; rank 2 on a slower GPU; rank 3 time-sliced; rank 5 without a memory link of its own.
  const auto classes = rank_classes({1.0, 1.0, 0.9, 1.0, 1.0, 1.0}, {false, false, false, true, false, false},
                                    {0, 1, 2, 3, 4, -1});
  const std::vector<std::vector<int>> expected = {{0, 1, 4}, {2}, {3}, {5}};
  EXPECT_EQ(classes, expected);
}

TEST(ClassNoise, OneMemberDrawsAsTheRankItselfWould) {
  StallConfig stalls{0.3, 0.05};
  ComputeNoise rank(5, 17, 0.1, stalls);
  ClassNoise alone(5, {17}, 0.1, stalls);
  for (int iteration = 0; iteration < 20; ++iteration) {
    const IterationDraws draws = alone.next(2, 1.0, 0.1, 1.0);
    EXPECT_EQ(draws.stall_s, rank.next_stall_s());
    EXPECT_EQ(draws.multipliers[0], rank.next_multiplier());
    EXPECT_EQ(draws.multipliers[1], rank.next_multiplier());
    EXPECT_EQ(draws.member, 0);
  }
}

TEST(ClassNoise, TheClassRunsWithItsSlowestMembersDraws) {
  // Three members' own draws, one micro-batch of 2 s of kernels, 0.5 s of optimizer, GPUs at speed 1.1: each
  // member's time is stall + 1.1 x (f x 2 + f x 0.5); the class takes the largest.
  const StallConfig stalls{0.2, 0.4};
  std::vector<ComputeNoise> members;
  for (std::uint64_t stream : {3, 4, 9}) members.emplace_back(11, stream, 0.05, stalls);
  ClassNoise noise(11, {3, 4, 9}, 0.05, stalls);
  std::set<int> chosen;
  for (int iteration = 0; iteration < 50; ++iteration) {
    double slowest = -1;
    double sum = 0;
    int slowest_member = -1;
    double slowest_multiplier = 0;
    for (int m = 0; m < 3; ++m) {
      const double stall = members[static_cast<std::size_t>(m)].next_stall_s();
      const double f = members[static_cast<std::size_t>(m)].next_multiplier();
      const double time = stall + 1.1 * (f * 2 + f * 0.5);
      sum += time;
      if (time > slowest) {
        slowest = time;
        slowest_member = m;
        slowest_multiplier = f;
      }
    }
    const IterationDraws draws = noise.next(1, 2.0, 0.5, 1.1);
    EXPECT_EQ(draws.member, slowest_member);
    EXPECT_EQ(draws.multipliers[0], slowest_multiplier);
    EXPECT_NEAR(draws.kernel_s, slowest, 1e-12);
    EXPECT_NEAR(draws.members_kernel_s, sum, 1e-12);
    chosen.insert(draws.member);
  }
  EXPECT_EQ(chosen.size(), 3U);  // each member is the slowest some of the time
}

/// 64 A100s (8 hosts of 8, NVLink, RoCE) training BERT-large at analytic fidelity for `iterations`.
nlohmann::json bert_64(const std::string& data_parallel, int iterations) {
  return {{"cluster",
           {{"racks", 1},
            {"hosts_per_rack", 8},
            {"host", {{"gpus", 8}, {"gpu_model", "a100-80gb-sxm4"}, {"nic_model", "connectx-6-200gb"}}},
            {"transport", "roce_v2"}}},
          {"jobs",
           {{{"workload", "bert-large-pretrain-seq128"},
             {"batch_per_gpu", 32},
             {"data_parallel", data_parallel},
             {"iterations", iterations},
             {"warmup_iterations", 1}}}},
          {"simulation", {{"fidelity", "analytic"}}}};
}

nlohmann::json job_of(const Scenario& scenario) {
  return vtsim::tools::run_isolated([&] { return to_json(simulate(scenario)); })["jobs"][0];
}

TEST(ReducedSimulation, AlikeRanksWithoutVariabilityGiveTheFullSimulationsSteps) {
  for (const std::string framework : {"horovod", "pytorch_ddp"}) {
    const nlohmann::json reduced = job_of(scenario_of(bert_64(framework, 3)));
    const nlohmann::json full = job_of(scenario_of(bert_64(framework, 3), {"simulation.reduce_ranks=false"}));
    EXPECT_EQ(reduced["simulated_ranks"]["ranks"], 1) << framework;
    EXPECT_EQ(full["simulated_ranks"]["ranks"], 64) << framework;
    EXPECT_EQ(full["simulated_ranks"]["not_reduced"], "simulation.reduce_ranks is false");
    EXPECT_EQ(reduced["ranks"], 64);
    const double full_step = full["step_time_s"]["mean"].get<double>();
    EXPECT_NEAR(reduced["step_time_s"]["mean"].get<double>(), full_step, 1e-9 * full_step) << framework;
    EXPECT_NEAR(reduced["breakdown_s"]["compute"].get<double>(), full["breakdown_s"]["compute"].get<double>(),
                1e-9 * full_step);
  }
}

/// Every rank of `json`'s job draws 5% per iteration and stalls 20 ms one iteration in ten, so each step waits for the
/// slowest of its ranks; the reduced simulation's mean step is held within 1% of the full one's, and its straggler
/// wait within 15% (the breakdown's members keep their own draws).
void expect_variability_survives_the_reduction(nlohmann::json json, const std::string& framework) {
  json["simulation"]["variability"] = true;
  json["simulation"]["stalls"] = {{"per_iteration_probability", 0.1}, {"duration_ms", 20}};
  json["jobs"][0]["step_time_cv"] = 0.05;
  const nlohmann::json reduced = job_of(scenario_of(json));
  const nlohmann::json full = job_of(scenario_of(json, {"simulation.reduce_ranks=false"}));
  EXPECT_EQ(reduced["simulated_ranks"]["ranks"], 1);
  const double full_step = full["step_time_s"]["mean"].get<double>();
  const double alone = full["single_gpu"]["step_time_s"].get<double>();
  EXPECT_GT(full_step, alone * 1.05) << framework;  // the slowest of 64 shows
  EXPECT_NEAR(reduced["step_time_s"]["mean"].get<double>(), full_step, 0.01 * full_step) << framework;
  const double straggler = full["breakdown_s"]["straggler_wait"].get<double>();
  EXPECT_GT(straggler, 0.01 * full_step);
  EXPECT_NEAR(reduced["breakdown_s"]["straggler_wait"].get<double>(), straggler, 0.15 * straggler) << framework;
}

TEST(ReducedSimulation, VariabilityAndStallsSurviveTheReductionWithinOnePercent) {
  for (const std::string framework : {"horovod", "pytorch_ddp"}) {
    expect_variability_survives_the_reduction(bert_64(framework, 20), framework);
  }
}

TEST(ReducedSimulation, SaysWhyAJobIsNotReduced) {
  nlohmann::json json = bert_64("pytorch_ddp", 1);
  json["jobs"][0]["parallelism"] = {{"tensor", 2}};
  const nlohmann::json parallel = job_of(scenario_of(json));
  EXPECT_EQ(parallel["simulated_ranks"]["ranks"], 64);
  EXPECT_EQ(parallel["simulated_ranks"]["not_reduced"], "tensor, pipeline or sharded parallelism");
  // GPUs of different speeds: every rank is a class of its own.
  json["jobs"][0].erase("parallelism");
  json["simulation"]["variability"] = true;
  json["simulation"]["gpu_speed_cv"] = 0.05;
  const nlohmann::json spread = job_of(scenario_of(json));
  EXPECT_EQ(spread["simulated_ranks"]["ranks"], 64);
  EXPECT_FALSE(spread["simulated_ranks"].contains("not_reduced"));
}

/// 64 A100s in 2 racks of 4 hosts of 8, the racks joined by 2 spines (ECMP hashes each flow between racks onto one,
/// so some of them share an uplink), training BERT-large at flow fidelity.
nlohmann::json bert_64_two_racks(const std::string& data_parallel, int iterations) {
  nlohmann::json json = bert_64(data_parallel, iterations);
  json["cluster"]["racks"] = 2;
  json["cluster"]["hosts_per_rack"] = 4;
  json["cluster"]["fabric"] = {{"spines", 2}, {"uplink_gbps", 200}};
  json["simulation"]["fidelity"] = "flow";
  return json;
}

nlohmann::json result_of(const Scenario& scenario) {
  return vtsim::tools::run_isolated([&] { return to_json(simulate(scenario)); });
}

TEST(ReducedSimulation, AtFlowFidelityOneRankComputesForItsClassAndEveryRankKeepsItsFlows) {
  // Without variability the members' iterations end when their own reductions do, and the rank standing for them
  // starts its next one with the last of them: the full simulation's steps and every one of its flows.
  for (const std::string framework : {"horovod", "pytorch_ddp"}) {
    nlohmann::json json = bert_64_two_racks(framework, 2);
    json["simulation"]["variability"] = false;
    const nlohmann::json reduced = result_of(scenario_of(json));
    const nlohmann::json full = result_of(scenario_of(json, {"simulation.reduce_ranks=false"}));
    EXPECT_EQ(reduced["jobs"][0]["simulated_ranks"]["ranks"], 1) << framework;
    EXPECT_FALSE(reduced["jobs"][0]["simulated_ranks"].contains("not_reduced"));
    EXPECT_EQ(full["jobs"][0]["simulated_ranks"]["ranks"], 64) << framework;
    EXPECT_EQ(reduced["communications"], full["communications"]) << framework;
    const double full_step = full["jobs"][0]["step_time_s"]["mean"].get<double>();
    EXPECT_NEAR(reduced["jobs"][0]["step_time_s"]["mean"].get<double>(), full_step, 1e-12 * full_step) << framework;
    ASSERT_EQ(reduced["link_classes"].size(), full["link_classes"].size());
    for (std::size_t c = 0; c < full["link_classes"].size(); ++c) {
      const double bytes_per_s = full["link_classes"][c]["bytes_per_s"].get<double>();
      EXPECT_NEAR(reduced["link_classes"][c]["bytes_per_s"].get<double>(), bytes_per_s, 1e-9 * bytes_per_s)
          << framework << " " << full["link_classes"][c]["class"];
    }
  }
}

TEST(ReducedSimulation, AtFlowFidelityVariabilityAndStallsSurviveTheReductionWithinOnePercent) {
  // The members end their reductions at different times (flows between racks share uplinks unevenly), so the rank
  // standing for them runs with the member whose iteration ends last from where that member starts.
  for (const std::string framework : {"horovod", "pytorch_ddp"}) {
    expect_variability_survives_the_reduction(bert_64_two_racks(framework, 10), framework);
  }
}

}  // namespace
}  // namespace vtsim::sim
