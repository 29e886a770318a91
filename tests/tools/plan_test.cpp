// vtsim plan: the configurations it considers, that what it simulates fits, and its ranking.

#include "tools/commands/plan_command.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "models/catalog/gpu_catalog.hpp"
#include "models/core/units.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim::tools {
namespace {

TEST(PlanCandidates, EveryConfigurationTrainsTheGlobalBatchAndIsCountedByHand) {
  const Workload gpt = *make_workload("gpt3-6.7b");  // 32 layers, 32 heads
  // 4 GPUs on one host, global batch 8, micro-batches 1 or 2: (t, p) in (1,1) (1,2) (1,4) (2,1) (2,2) (4,1), with
  // d = 4, 2, 1, 2, 1, 1. Per split: 2 micro-batch sizes x ZeRO stages (4 when d > 1, else 1) x 3 recomputations:
  // 24 + 24 + 6 + 24 + 6 + 6 = 90.
  const auto candidates = plan_candidates(gpt, 4, 4, 8, 2, Precision::fp16, 40 * units::kBytesPerGiB);
  ASSERT_EQ(candidates.size(), 90u);
  for (const PlanCandidate& c : candidates) {
    const ParallelStrategy& s = c.strategy;
    EXPECT_EQ(s.tensor * s.pipeline * s.data, 4);
    EXPECT_EQ(s.data * s.micro_batch_size * s.micro_batches, 8);
    EXPECT_EQ(s.sequence_parallel, s.tensor > 1);
    EXPECT_EQ(c.fits, strategy_memory(gpt, s, Precision::fp16).total_bytes() <= 40 * units::kBytesPerGiB);
  }
  // Not a transformer: nothing to split.
  EXPECT_TRUE(plan_candidates(*make_workload("resnet-50"), 4, 4, 8, 2, Precision::fp16, 1e12).empty());
}

TEST(PlanCandidates, OnlyCandidatesNoOtherBeatsByConstructionAreSimulated) {
  const auto candidate = [](int zero, Recompute recompute, bool fits, int tensor = 1) {
    PlanCandidate c;
    c.strategy.tensor = tensor;
    c.strategy.data = 4;
    c.strategy.zero_stage = zero;
    c.strategy.recompute = recompute;
    c.fits = fits;
    return c;
  };
  const std::vector<PlanCandidate> candidates = {
      candidate(0, Recompute::none, false),      // 0: does not fit
      candidate(1, Recompute::none, true),       // 1: kept
      candidate(0, Recompute::selective, true),  // 2: kept: ZeRO-0 is not beaten by ZeRO-1 (same bytes)
      candidate(1, Recompute::selective, true),  // 3: beaten by 1 (less recomputation)
      candidate(2, Recompute::none, true),       // 4: beaten by 1 (ZeRO-2 adds reduce-scatters)
      candidate(3, Recompute::full, true),       // 5: beaten by 1, 2, 3, 4
      candidate(3, Recompute::full, true, 2),    // 6: another split: kept
  };
  EXPECT_EQ(undominated_candidates(candidates), (std::vector<std::size_t>{1, 2, 6}));
}

TEST(Plan, RanksFittingConfigurationsByThroughputAndSaysWhyTheOthersDoNotFit) {
  std::ostringstream out;
  PlanRequest request;
  request.scenario_file = std::string(VTSIM_SOURCE_DIR) + "/scenarios/a100-vgpu-gpt3-6.7b.json";
  request.overrides = {"jobs[0].global_batch=4"};
  request.max_micro_batch = 1;
  request.json = true;
  const nlohmann::json plan = plan_command(request, out);
  ASSERT_GE(plan["ranked"].size(), 1u);
  EXPECT_TRUE(plan["failed"].empty());
  double previous = 1e300;
  for (const nlohmann::json& entry : plan["ranked"]) {
    EXPECT_LE(entry["samples_per_s"].get<double>(), previous);
    previous = entry["samples_per_s"].get<double>();
    EXPECT_LE(entry["memory_per_gpu_gib"].get<double>(), 40.0);
    // Samples per step are the global batch.
    EXPECT_NEAR(entry["samples_per_s"].get<double>() * entry["step_time_s"].get<double>(), 4.0, 1e-9);
  }
  // Plain data parallelism without ZeRO or recomputation, the fastest of its split, cannot hold 6.7B parameters' 18
  // bytes of mixed-precision Adam state each (fp32 master 4, fp16 copy 2, gradient 4, moments 8) in 40 GiB.
  bool plain_dp_missed = false;
  const double parameters = make_workload("gpt3-6.7b")->parameters();
  for (const nlohmann::json& miss : plan["not_fitting"]) {
    if (miss["tensor"] != 1 || miss["pipeline"] != 1) continue;
    plain_dp_missed = true;
    EXPECT_EQ(miss["fastest_miss"], "TP 1 x PP 1 x DP 4, micro-batch 1 x 1");
    const nlohmann::json& memory = miss["fastest_miss_memory_gib"];
    const double states = memory["weights"].get<double>() + memory["gradients"].get<double>() +
                          memory["optimizer"].get<double>();
    EXPECT_NEAR(states, 18 * parameters / units::kBytesPerGiB, 1e-9 * states);
  }
  EXPECT_TRUE(plain_dp_missed);
  EXPECT_TRUE(plan.contains("why_the_best_wins"));
}

}  // namespace
}  // namespace vtsim::tools
