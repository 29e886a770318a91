#include "models/compute/variability.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

namespace vtsim {

StepTimeSpread default_step_time_spread(const Workload& workload) {
  if (workload.variable_input) {
    return {0.10, "uncalibrated default: 10% step-time spread for inputs of variable size (" + workload.name +
                      "); no published per-iteration figure; import a step-time log to measure it", true};
  }
  return {0.02, "uncalibrated default: 2% step-time spread for fixed-shape inputs; no published per-iteration "
                "figure; import a step-time log to measure it", true};
}

double coefficient_of_variation(const std::vector<double>& times) {
  assert(times.size() >= 2);
  double sum = 0;
  for (double t : times) sum += t;
  const double mean = sum / static_cast<double>(times.size());
  double squares = 0;
  for (double t : times) squares += (t - mean) * (t - mean);
  return std::sqrt(squares / static_cast<double>(times.size() - 1)) / mean;
}

ComputeNoise::ComputeNoise(std::uint64_t seed, std::uint64_t stream, double cv, StallConfig stalls)
    : stalls_(stalls) {
  // splitmix64 of (seed, stream) seeds the generator: nearby streams get unrelated sequences.
  std::uint64_t x = seed ^ (stream * 0x9e3779b97f4a7c15ULL);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  generator_.seed(x ^ (x >> 31));
  // Lognormal of mean 1 and CV cv: sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
  sigma_ = std::sqrt(std::log1p(cv * cv));
  mu_ = -sigma_ * sigma_ / 2;
}

double ComputeNoise::uniform() {
  // mt19937_64's output is fixed by the standard; std::uniform_real_distribution's is not.
  return (static_cast<double>(generator_() >> 11) + 0.5) * 0x1.0p-53;
}

double ComputeNoise::next_multiplier() {
  if (sigma_ == 0) return 1.0;
  // Box-Muller: one standard normal from two uniforms.
  const double z = std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
  return std::exp(mu_ + sigma_ * z);
}

double ComputeNoise::next_stall_s() {
  if (stalls_.probability <= 0) return 0;
  return uniform() < stalls_.probability ? stalls_.duration_s : 0.0;
}

}  // namespace vtsim
