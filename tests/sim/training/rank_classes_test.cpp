// Rank classes (sim/training/rank_classes.hpp): which ranks are alike, the draws a class runs with, and the reduced
// simulation held to the full one on jobs small enough to run both.

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "sim/engine/simulation.hpp"
#include "sim/training/rank_classes.hpp"
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

TEST(LockstepNoise, OneMemberDrawsAsTheRankItselfWould) {
  const StallConfig stalls{0.3, 0.05};
  ComputeNoise rank(5, 17, 0.1, stalls);
  LockstepNoise alone(5, {17}, 0.1, stalls);
  for (int iteration = 0; iteration < 20; ++iteration) {
    EXPECT_EQ(alone.next_stall_s(), rank.next_stall_s());
    EXPECT_EQ(alone.next_multiplier(), rank.next_multiplier());
    alone.ran(1.0);
    EXPECT_EQ(alone.take_members_saved_s(), 0.0);
  }
}

TEST(LockstepNoise, TheGroupTakesItsLongestStallAndLargestMultiplierAndCountsWhatTheOthersWouldHaveSaved) {
  // Three members' own draws: per iteration a stall, then two passes of 2 s and 0.5 s of kernels. Each member alone
  // would take stall + f1 x 2 + f2 x 0.5; in lockstep each takes max stall + max f1 x 2 + max f2 x 0.5.
  const StallConfig stalls{0.2, 0.4};
  std::vector<ComputeNoise> members;
  for (std::uint64_t stream : {3, 4, 9}) members.emplace_back(11, stream, 0.05, stalls);
  LockstepNoise group(11, {3, 4, 9}, 0.05, stalls);
  for (int iteration = 0; iteration < 50; ++iteration) {
    std::vector<double> own(3, 0.0);
    double longest = 0;
    for (std::size_t m = 0; m < 3; ++m) {
      own[m] = members[m].next_stall_s();
      longest = std::max(longest, own[m]);
    }
    EXPECT_EQ(group.next_stall_s(), longest);
    double lockstep = longest;
    for (const double base_s : {2.0, 0.5}) {
      double largest = 0;
      for (std::size_t m = 0; m < 3; ++m) {
        const double f = members[m].next_multiplier();
        own[m] += f * base_s;
        largest = std::max(largest, f);
      }
      EXPECT_EQ(group.next_multiplier(), largest);
      group.ran(base_s);
      lockstep += largest * base_s;
    }
    const double saved = 3 * lockstep - (own[0] + own[1] + own[2]);
    EXPECT_NEAR(group.take_members_saved_s(), saved, 1e-12);
  }
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
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); })["jobs"][0];
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
  EXPECT_EQ(parallel["simulated_ranks"]["ranks"], 32);  // at analytic fidelity, one per tensor group
  EXPECT_FALSE(parallel["simulated_ranks"].contains("not_reduced"));
  json["simulation"]["fidelity"] = "flow";
  const nlohmann::json flows = job_of(scenario_of(json));
  EXPECT_EQ(flows["simulated_ranks"]["ranks"], 64);
  EXPECT_EQ(flows["simulated_ranks"]["not_reduced"],
            "tensor, pipeline or sharded parallelism at flow or step fidelity");
  json["simulation"]["fidelity"] = "analytic";
  json["simulation"]["variability"] = true;
  json["simulation"]["gpu_speed_cv"] = 0.05;
  const nlohmann::json unlike = job_of(scenario_of(json));
  EXPECT_EQ(unlike["simulated_ranks"]["ranks"], 64);
  EXPECT_EQ(unlike["simulated_ranks"]["not_reduced"],
            "the ranks of a tensor group differ (speed, time slicing or memory)");
  // GPUs of different speeds: every rank is a class of its own.
  json["jobs"][0].erase("parallelism");
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
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); });
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

TEST(ReducedSimulation, TensorGroupsRunAsOneRankAndGiveTheFullSimulationsSteps) {
  for (const auto& [schedule, zero_stage] :
       std::vector<std::pair<std::string, int>>{{"gpipe", 0}, {"1f1b", 1}, {"interleaved", 0}, {"1f1b", 3}}) {
    const std::string name = schedule + " ZeRO-" + std::to_string(zero_stage);
    const nlohmann::json reduced = result_of(scenario_of(testing::split_gpt(schedule, zero_stage, 2)));
    const nlohmann::json full =
        result_of(scenario_of(testing::split_gpt(schedule, zero_stage, 2), {"simulation.reduce_ranks=false"}));
    const nlohmann::json& job = reduced["jobs"][0];
    EXPECT_EQ(job["simulated_ranks"]["ranks"], 4) << name;
    EXPECT_FALSE(job["simulated_ranks"].contains("not_reduced")) << name;
    EXPECT_EQ(full["jobs"][0]["simulated_ranks"]["ranks"], 16) << name;
    EXPECT_EQ(reduced["communications"], full["communications"]) << name;  // every member's transfers
    const double full_step = full["jobs"][0]["step_time_s"]["mean"].get<double>();
    EXPECT_NEAR(job["step_time_s"]["mean"].get<double>(), full_step, 1e-9 * full_step) << name;
    for (const char* part : {"compute", "exposed_communication", "straggler_wait"}) {
      EXPECT_NEAR(job["breakdown_s"][part].get<double>(), full["jobs"][0]["breakdown_s"][part].get<double>(),
                  1e-9 * full_step)
          << name << " " << part;
    }
    // The waits in all are the same. Their split is not: in the full simulation a member whose own transfer ended
    // first waits for the others' at the group's next collective (tensor-parallel time; under ZeRO-3 the next
    // gather), where the group standing as one rank waits for all of its transfers (pipeline wait).
    double reduced_waits = 0;
    double full_waits = 0;
    for (const char* part : {"tensor_parallel", "pipeline_wait", "data_parallel_wait"}) {
      reduced_waits += job["parallelism"]["communication_s"][part].get<double>();
      full_waits += full["jobs"][0]["parallelism"]["communication_s"][part].get<double>();
    }
    EXPECT_NEAR(reduced_waits, full_waits, 1e-9 * full_step) << name;
    EXPECT_GT(full_waits, 0.01 * full_step) << name;
  }
}

TEST(ReducedSimulation, TensorGroupsKeepVariabilityAndStallsWithinOnePercent) {
  // Each member draws 5% per pass and stalls 20 ms one iteration in ten; a group runs each pass at its slowest
  // member's draw. The full simulation differs only where a member's trailing kernels end early and it starts its
  // transfer before the others.
  for (const std::string schedule : {"1f1b", "interleaved"}) {
    nlohmann::json json = testing::split_gpt(schedule, 1, 10);
    json["simulation"]["variability"] = true;
    json["simulation"]["stalls"] = {{"per_iteration_probability", 0.1}, {"duration_ms", 20}};
    json["jobs"][0]["step_time_cv"] = 0.05;
    const nlohmann::json reduced = job_of(scenario_of(json));
    const nlohmann::json full = job_of(scenario_of(json, {"simulation.reduce_ranks=false"}));
    EXPECT_EQ(reduced["simulated_ranks"]["ranks"], 4) << schedule;
    const double full_step = full["step_time_s"]["mean"].get<double>();
    EXPECT_NEAR(reduced["step_time_s"]["mean"].get<double>(), full_step, 0.01 * full_step) << schedule;
    const double compute = full["breakdown_s"]["compute"].get<double>();
    EXPECT_NEAR(reduced["breakdown_s"]["compute"].get<double>(), compute, 0.01 * compute) << schedule;
    // The variability shows: without it the step is shorter.
    json["simulation"]["variability"] = false;
    EXPECT_GT(full_step, 1.02 * job_of(scenario_of(json))["step_time_s"]["mean"].get<double>()) << schedule;
  }
}

}  // namespace
}  // namespace vtsim::sim
