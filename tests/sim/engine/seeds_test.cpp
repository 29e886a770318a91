// A point run under several seeds (simulation.seeds, runner/point_runner.hpp): the spread it reports is that of the
// same point run once under each seed, and a single run whose flows cross hashed spines says it is one draw.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/scenario/scenario_loader.hpp"
#include "runner/point_runner.hpp"

namespace vtsim::sim {
namespace {

Scenario shipped(const std::string& file, std::vector<std::string> overrides) {
  return load_scenario_file(std::string(VTSIM_SOURCE_DIR) + "/scenarios/" + file, overrides);
}

TEST(Seeds, TheSpreadIsThatOfOneRunPerSeed) {
  // The default scenario, three measured iterations: its compute varies per iteration by the seed.
  const std::vector<std::string> base = {"jobs[0].iterations=3", "simulation.seed=7"};
  std::vector<std::string> three = base;
  three.push_back("simulation.seeds=3");
  const nlohmann::json spread = runner::simulate_point(shipped("a100-nvlink-bert.json", three));
  std::vector<double> samples;
  std::vector<double> steps;
  for (const int seed : {7, 8, 9}) {
    const nlohmann::json once = runner::simulate_point(
        shipped("a100-nvlink-bert.json", {"jobs[0].iterations=3", "simulation.seed=" + std::to_string(seed)}));
    samples.push_back(once["jobs"][0]["samples_per_s"].get<double>());
    steps.push_back(once["jobs"][0]["step_time_s"]["mean"].get<double>());
    if (seed == 7) {
      EXPECT_EQ(spread["jobs"][0]["samples_per_s"], once["jobs"][0]["samples_per_s"]);  // the result is the first's
    }
  }
  ASSERT_NE(samples[0], samples[1]) << "the seeds must draw different compute times for this test to mean anything";
  EXPECT_EQ(spread["seeds"]["values"], nlohmann::json::array({7, 8, 9}));
  const nlohmann::json& across = spread["jobs"][0]["across_seeds"];
  EXPECT_EQ(across["runs"].get<int>(), 3);
  EXPECT_DOUBLE_EQ(across["samples_per_s"]["min"].get<double>(), *std::min_element(samples.begin(), samples.end()));
  EXPECT_DOUBLE_EQ(across["samples_per_s"]["max"].get<double>(), *std::max_element(samples.begin(), samples.end()));
  EXPECT_DOUBLE_EQ(across["samples_per_s"]["mean"].get<double>(),
                   std::accumulate(samples.begin(), samples.end(), 0.0) / 3);
  EXPECT_DOUBLE_EQ(across["step_time_s"]["max"].get<double>(), *std::max_element(steps.begin(), steps.end()));
  EXPECT_FALSE(across["samples_per_s"].contains("p5"));  // percentiles from 20 runs
}

TEST(Seeds, TwentyRunsGiveNearestRankPercentiles) {
  const nlohmann::json result = runner::simulate_point(shipped(
      "a100-nvlink-bert.json", {"jobs[0].iterations=2", "simulation.fidelity=analytic", "simulation.seeds=20"}));
  const nlohmann::json& across = result["jobs"][0]["across_seeds"]["step_time_s"];
  ASSERT_TRUE(across.contains("p5"));
  // Nearest rank of 20 sorted values: p5 is the ceil(0.05 x 20) = 1st, p95 the ceil(0.95 x 20) = 19th; the 19th is
  // neither the largest nor (with 20 distinct draws) the smallest.
  EXPECT_EQ(across["p5"], across["min"]);
  EXPECT_LT(across["p95"].get<double>(), across["max"].get<double>());
  EXPECT_GT(across["p95"].get<double>(), across["min"].get<double>());
}

TEST(Seeds, OneRunAcrossHashedSpinesSaysItIsOneDraw) {
  // Four racks joined by 4 ECMP spines: one run is one draw of the hashing. The default scenario (one host) is not.
  const nlohmann::json racks = runner::simulate_point(
      shipped("rack-scaleout-roce.json", {"simulation.fidelity=analytic", "jobs[0].iterations=1"}));
  ASSERT_EQ(racks["seeds"]["runs"].get<int>(), 1);
  EXPECT_NE(racks["seeds"]["note"].get<std::string>().find("one draw"), std::string::npos);
  const nlohmann::json one_host = runner::simulate_point(shipped("a100-nvlink-bert.json", {"jobs[0].iterations=1"}));
  EXPECT_FALSE(one_host["seeds"].contains("note"));
  // With InfiniBand's adaptive routing (its default there) no flow is hashed onto a spine.
  const nlohmann::json adaptive = runner::simulate_point(shipped(
      "rack-scaleout-roce.json", {"simulation.fidelity=analytic", "jobs[0].iterations=1",
                                  "cluster.transport=infiniband", "cluster.host.nic_model=connectx-6-vpi-hdr"}));
  EXPECT_FALSE(adaptive["seeds"].contains("note"));
}

}  // namespace
}  // namespace vtsim::sim
