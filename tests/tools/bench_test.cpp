// vtsim bench's JSON: what it measures and the targets it holds them to (wall times are the machine's, so only the
// simulated figures are checked here).

#include "tools/commands/bench_command.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

namespace vtsim::tools {
namespace {

TEST(Bench, JsonHasEveryFidelityAtTheSmallestSizeAndFlowAgreesWithStep) {
  std::ostringstream out;
  bench_command(out, BenchRequest{.max_gpus = 16, .repeat = 1, .sweep_points = 0, .format = "json"});
  const nlohmann::json json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["points"].size(), 3u);  // 16 GPUs at step, flow and analytic
  for (const nlohmann::json& point : json["points"]) {
    EXPECT_EQ(point["gpus"], 16);
    EXPECT_GT(point["simulated_step_s"].get<double>(), 0.0);
    EXPECT_GT(point["wall_s"].get<double>(), 0.0);
  }
  // Step fidelity runs every ring step as a communication; flow runs one per rank and phase: far fewer.
  EXPECT_GT(json["points"][0]["communications"].get<double>(), json["points"][1]["communications"].get<double>());
  // The scale target "flow within 1% of step where both run", on the 2-host cluster.
  EXPECT_LE(std::abs(json["points"][1]["vs_step"].get<double>()), 0.01);
  // Targets not measured at this size are reported as such (null), not as met or missed.
  ASSERT_EQ(json["targets"].size(), 7u);
  EXPECT_TRUE(json["targets"][0]["met"].is_null());
  EXPECT_TRUE(json["targets"][2]["met"].is_null());  // 65,536 GPUs
  EXPECT_TRUE(json["targets"][3]["met"].is_null());  // 20 iterations
  EXPECT_TRUE(json["targets"][5]["met"].is_null());  // no sweep ran
  EXPECT_TRUE(json["targets"][6]["met"].get<bool>());
  // On two 8-GPU hosts with one NIC each, every NVLink ring edge is alone on its pair link: computed, not simulated.
  EXPECT_GT(json["points"][1]["transfers_alone"].get<double>(), 0.0);
  EXPECT_EQ(json["points"][0]["transfers_alone"].get<double>(), 0.0);  // step fidelity simulates every transfer
}

}  // namespace
}  // namespace vtsim::tools
