// Compute variability: the slowest of N ranks sets the pace of each collective, by the expected maximum of N draws
// of the per-iteration distribution, computed here by numerical integration of its CDF, within sampling error.

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "models/compute/variability.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::simulate_in_child;

/// E[max of n draws] of a lognormal of mean 1 and coefficient of variation cv: the integral of 1 - F(x)^n over
/// x >= 0, F(x) = Phi((ln x - mu) / sigma), sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2 (Simpson's rule).
double expected_maximum(int n, double cv) {
  const double sigma = std::sqrt(std::log(1 + cv * cv));
  const double mu = -sigma * sigma / 2;
  const auto tail = [&](double x) {
    if (x <= 0) return 1.0;
    const double cdf = 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::numbers::sqrt2));
    return 1 - std::pow(cdf, n);
  };
  const int steps = 20000;
  const double upper = 4.0;
  const double h = upper / steps;
  double sum = tail(0) + tail(upper);
  for (int i = 1; i < steps; ++i) sum += (i % 2 == 1 ? 4 : 2) * tail(i * h);
  return sum * h / 3;
}

TEST(Variability, ExpectedMaximumOfTheDrawsIsRight) {
  // Against the order statistics of standard normals for a small spread: a draw is exp(mu + sigma z) ~ 1 + sigma z +
  // sigma^2 (z^2 - 1) / 2, so E[max of n] ~ 1 + sigma E[z_(n)] + sigma^2 (E[z_(n)^2] - 1) / 2, with E[z_(4)] =
  // 1.02938 and Var[z_(4)] = 0.49172 (tables of normal order statistics), E[z_(2)] = 1 / sqrt(pi), E[z_(2)^2] = 1.
  const double sigma = std::sqrt(std::log(1 + 0.01 * 0.01));
  EXPECT_NEAR(expected_maximum(4, 0.01), 1 + sigma * 1.02938 + sigma * sigma * (1.02938 * 1.02938 + 0.49172 - 1) / 2,
              2e-6);
  EXPECT_NEAR(expected_maximum(2, 0.01), 1 + sigma / std::sqrt(std::numbers::pi), 2e-6);
  // And the generator's own draws: mean 1, spread cv.
  ComputeNoise noise(7, 3, 0.1, {});
  std::vector<double> draws;
  for (int i = 0; i < 20000; ++i) draws.push_back(noise.next_multiplier());
  double mean = 0;
  for (double d : draws) mean += d / static_cast<double>(draws.size());
  EXPECT_NEAR(mean, 1.0, 4 * 0.1 / std::sqrt(20000.0));
  EXPECT_NEAR(coefficient_of_variation(draws), 0.1, 0.004);
}

TEST(Variability, TheSlowestOfFourRanksSetsThePace) {
  // ResNet-50 on 4 NVLink-joined A100s: each rank's compute varies 10% per iteration. Each rank waits, on average,
  // E[max of 4] - E[one] = expected_maximum(4, 0.1) - 1 of the mean compute for the slowest one. Horovod launches a
  // fused allreduce once its gradients are ready everywhere, so a fast rank waits outside the
  // collective; under DDP it would wait inside it, its NCCL kernels spinning on SMs its compute then lacks, and part
  // of the wait would show as interference instead.
  constexpr int kIterations = 400;
  const nlohmann::json json = {
      {"cluster", {{"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}}}}},
      {"jobs",
       {{{"workload", "resnet-50"}, {"batch_per_gpu", 64}, {"iterations", kIterations}, {"step_time_cv", 0.1},
         {"data_loading_cpu_ms_per_sample", 0}, {"data_parallel", "horovod"}, {"horovod", {{"cycle_time_ms", 1}}}}}},
      {"simulation", {{"variability", true}, {"seed", 11}}}};
  nlohmann::json steady = json;
  steady["simulation"]["variability"] = false;
  const nlohmann::json varied = simulate_in_child(testing::scenario_of(json))["jobs"][0];
  const nlohmann::json alike = simulate_in_child(testing::scenario_of(steady))["jobs"][0];
  const double compute_s = alike["breakdown_s"]["compute"].get<double>();
  EXPECT_DOUBLE_EQ(alike["breakdown_s"]["straggler_wait"].get<double>(), 0.0);
  const double expected = compute_s * (expected_maximum(4, 0.1) - 1);
  // Sampling error: the per-iteration wait has a spread below 0.6 cv of the compute; over 400 iterations its mean is
  // within 4 standard errors.
  const double tolerance = 4 * 0.6 * 0.1 * compute_s / std::sqrt(static_cast<double>(kIterations));
  EXPECT_NEAR(varied["breakdown_s"]["straggler_wait"].get<double>(), expected, tolerance);
  // The mean compute is unchanged (draws of mean 1), and the step grows by about the wait.
  EXPECT_NEAR(varied["breakdown_s"]["compute"].get<double>(), compute_s, tolerance);
  EXPECT_GT(varied["step_time_s"]["p99"].get<double>(), varied["step_time_s"]["p50"].get<double>() * 1.05);
}

TEST(Variability, TheSameSeedGivesTheSameStepsAndAnotherSeedOthers) {
  nlohmann::json json = {{"cluster", {{"host", {{"gpus", 2}}}}},
                         {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"iterations", 5}}}},
                         {"simulation", {{"variability", true}, {"seed", 5}}}};
  const nlohmann::json first = simulate_in_child(testing::scenario_of(json));
  EXPECT_EQ(first.dump(), simulate_in_child(testing::scenario_of(json)).dump());
  json["simulation"]["seed"] = 6;
  EXPECT_NE(first["jobs"][0]["step_times_s"], simulate_in_child(testing::scenario_of(json))["jobs"][0]["step_times_s"]);
}

}  // namespace
}  // namespace vtsim::sim
