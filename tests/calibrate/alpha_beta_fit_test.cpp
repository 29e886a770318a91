#include "calibrate/alpha_beta_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace vtsim::calibrate {
namespace {

// Points time = alpha + size / beta at sizes 8 B .. 1 GiB (doubling), each with multiplicative Gaussian noise.
std::vector<FitSample> noisy_line(double alpha_s, double beta, double noise, std::mt19937& random,
                                  double from = 8, double to = 1073741824.0) {
  std::normal_distribution<double> error(0, noise);
  std::vector<FitSample> samples;
  for (double size = from; size <= to; size *= 2) {
    samples.push_back({size, (alpha_s + size / beta) * (1 + error(random))});
  }
  return samples;
}

TEST(AlphaBetaFit, RecoversAlphaAndBetaFromNoisyPoints) {
  std::mt19937 random(42);
  const std::vector<FitSample> samples = noisy_line(5e-6, 12.5e9, 0.01, random);
  const std::optional<LineFit> fit = fit_line(samples);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->alpha_s, 5e-6, 5e-6 * 0.02);
  EXPECT_NEAR(fit->beta, 12.5e9, 12.5e9 * 0.02);
  EXPECT_EQ(fit->points, static_cast<int>(samples.size()));
  EXPECT_GT(fit->residual, 0.005);  // the noise is 1% rms
  EXPECT_LT(fit->residual, 0.02);
}

TEST(AlphaBetaFit, ExactLineHasNoResidual) {
  const std::vector<FitSample> samples = {{1000, 2e-6 + 1000 / 1e9}, {1e6, 2e-6 + 1e6 / 1e9}, {1e8, 2e-6 + 1e8 / 1e9}};
  const std::optional<LineFit> fit = fit_line(samples);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->alpha_s, 2e-6, 1e-15);
  EXPECT_NEAR(fit->beta, 1e9, 1e-3);
  EXPECT_NEAR(fit->residual, 0, 1e-12);
}

TEST(AlphaBetaFit, NegativeInterceptIsClampedToZero) {
  // time = size / 1e9 - 1 us on large sizes only: the best line through the origin instead.
  const std::vector<FitSample> samples = {{1e6, 1e-3 - 1e-6}, {2e6, 2e-3 - 1e-6}, {4e6, 4e-3 - 1e-6}};
  const std::optional<LineFit> fit = fit_line(samples);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->alpha_s, 0);
  EXPECT_NEAR(fit->beta, 1e9, 1e9 * 0.001);
}

TEST(AlphaBetaFit, NeedsTwoSizesAndGrowingTime) {
  EXPECT_FALSE(fit_line(std::vector<FitSample>{{8, 1e-6}}).has_value());
  EXPECT_FALSE(fit_line(std::vector<FitSample>{{8, 1e-6}, {8, 2e-6}}).has_value());
  EXPECT_FALSE(fit_line(std::vector<FitSample>{{8, 2e-6}, {1e6, 1e-6}}).has_value());  // faster when larger
  EXPECT_FALSE(fit_line(std::vector<FitSample>{{8, 0}, {16, 1e-6}}).has_value());
}

TEST(PiecewiseFit, FindsTheProtocolSwitch) {
  // Small messages (<= 64 KiB): 2 us + bytes / 5 GB/s; large (>= 128 KiB): 20 us + bytes / 20 GB/s.
  std::mt19937 random(7);
  std::vector<FitSample> samples = noisy_line(2e-6, 5e9, 0.01, random, 8, 65536);
  const std::vector<FitSample> large = noisy_line(20e-6, 20e9, 0.01, random, 131072, 1073741824.0);
  samples.insert(samples.end(), large.begin(), large.end());
  const std::optional<PiecewiseFit> fit = fit_piecewise(samples);
  ASSERT_TRUE(fit.has_value());
  EXPECT_GT(fit->whole.residual, 0.05);
  ASSERT_EQ(fit->segments.size(), 2u);
  EXPECT_EQ(fit->from_size, (std::vector<double>{0, 131072}));
  EXPECT_NEAR(fit->segments[0].alpha_s, 2e-6, 2e-6 * 0.03);
  EXPECT_NEAR(fit->segments[0].beta, 5e9, 5e9 * 0.05);
  EXPECT_NEAR(fit->segments[1].alpha_s, 20e-6, 20e-6 * 0.05);
  EXPECT_NEAR(fit->segments[1].beta, 20e9, 20e9 * 0.02);
  EXPECT_EQ(fit->segments[0].points + fit->segments[1].points, static_cast<int>(samples.size()));
  EXPECT_LT(fit->segments[0].residual, 0.02);
  EXPECT_LT(fit->segments[1].residual, 0.02);
}

TEST(PiecewiseFit, KeepsOneLineWhenItFits) {
  std::mt19937 random(3);
  const std::optional<PiecewiseFit> fit = fit_piecewise(noisy_line(10e-6, 100e9, 0.01, random));
  ASSERT_TRUE(fit.has_value());
  EXPECT_TRUE(fit->segments.empty());
  EXPECT_TRUE(fit->from_size.empty());
}

}  // namespace
}  // namespace vtsim::calibrate
